import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AppAuthorized } from '../src/gen/marquee/auth/v1/app.js';
import { FanDeleted } from '../src/gen/marquee/auth/v1/fan.js';
import {
  BookingExpired,
  BookingHeld,
  BookingReleased,
  InventoryType,
  ReleaseReason,
} from '../src/gen/marquee/cart/v1/booking.js';
import {
  CancelReason,
  DeliveryMethodType,
  OrderCancelled,
  OrderConfirmed,
  OrderPrinted,
  PaymentCaptured,
  PaymentRefunded,
  PaymentMethodType,
  PrintAction,
} from '../src/gen/marquee/cart/v1/order.js';
import { QueueAdmitted, QueueOpened } from '../src/gen/marquee/cart/v1/queue.js';
import { AvailabilityChanged, SyncScope } from '../src/gen/marquee/catalog/v1/availability.js';
import {
  EventChanged,
  EventStatus,
  OutletType,
  PriceRangeType,
} from '../src/gen/marquee/catalog/v1/event.js';
import { DealChanged, DealState, Exclusivity } from '../src/gen/marquee/deals/v1/deal.js';
import {
  RenderType,
  ScanResult,
  TicketIssued,
  TicketScanned,
  TicketVoided,
  VoidReason,
} from '../src/gen/marquee/entry/v1/ticket.js';
import {
  PartnerCallFailed,
  PartnerHealth,
  PartnerHealthChanged,
  PartnerOperation,
} from '../src/gen/marquee/partner/v1/partner.js';
import {
  CaseTrigger,
  Outcome,
  ReconciliationResolved,
} from '../src/gen/marquee/reconciliation/v1/case.js';
import {
  allTopics,
  appAuthorizedTopic,
  availabilityChangedTopic,
  bookingExpiredTopic,
  bookingHeldTopic,
  bookingReleasedTopic,
  dealChangedTopic,
  eventChangedTopic,
  fanDeletedTopic,
  findTopic,
  getTopic,
  orderCancelledTopic,
  orderConfirmedTopic,
  orderPrintedTopic,
  paymentCapturedTopic,
  paymentRefundedTopic,
  queueAdmittedTopic,
  queueOpenedTopic,
  partnerCallFailedTopic,
  partnerHealthChangedTopic,
  reconciliationResolvedTopic,
  ticketIssuedTopic,
  ticketScannedTopic,
  ticketVoidedTopic,
  type TopicDef,
} from '../src/topics.js';

const repoRoot = new URL('../../../', import.meta.url);
const at = (iso: string): Date => new Date(iso);
const usd = (amountMinor: number) => ({ amountMinor, currency: 'USD' });

// Builders: one realistic, fully populated message per topic, so that a codec bound to the wrong
// message type, a lost field or a mangled Date/int64/oneof/map shows up as a round-trip difference.

const anEventChanged = (): EventChanged =>
  EventChanged.fromPartial({
    changedAt: at('2026-03-01T10:00:00.123Z'),
    event: {
      id: 'G5vYZ9abcdEFgh1',
      source: { id: 'acme-1', name: 'acme', publishingSource: { id: 'ps-1', name: 'cms' } },
      version: 7,
      publisherVersion: 2.5,
      active: true,
      test: false,
      url: 'https://acme.example/e/1',
      names: { values: { 'en-us': 'Rock Night', 'fr-ca': 'Soirée rock' } },
      descriptions: { values: { 'en-us': 'Loud.' } },
      pleaseNotes: { values: { 'en-us': 'No cameras.' } },
      attractions: [
        { ref: { $case: 'id', value: 'K8vZ917Gku7' }, resolvedId: 'K8vZ917Gku7' },
        {
          ref: { $case: 'source', value: { id: 'band-9', name: 'acme' } },
          names: { values: { 'en-us': 'The Band' } },
        },
      ],
      classifications: [
        {
          primary: true,
          segment: { id: 'KZFzniwnSyZfZ7v7nJ', names: { values: { 'en-us': 'Music' } } },
          genre: { id: 'KnvZfZ7vAeA', names: { values: { 'en-us': 'Rock' } } },
          subGenre: { names: { values: { 'en-us': 'Pop-Rock' } } },
        },
      ],
      dates: {
        start: {
          localDate: '2026-06-01',
          localTime: '20:00:00',
          dateTime: at('2026-06-02T00:00:00Z'),
          timeTba: false,
          noSpecificTime: false,
        },
        access: { startDateTime: at('2026-06-01T23:00:00Z'), startApproximate: true },
        end: { localTime: '23:30:00', approximate: true },
        timezone: 'America/New_York',
      },
      images: [
        {
          url: 'https://img.example/1.jpg',
          width: 1024,
          height: 576,
          ratio: '16_9',
          fallback: false,
        },
      ],
      outlets: [
        { url: 'https://venue.example/box', type: OutletType.OUTLET_TYPE_VENUE_BOX_OFFICE },
      ],
      location: {
        $case: 'place',
        value: {
          names: { values: { 'en-us': 'Central Park' } },
          address: { line1: { values: { 'en-us': '5th Ave' } } },
          cityNames: { values: { 'en-us': 'New York' } },
          country: { countryCode: 'US' },
          state: { stateCode: 'NY' },
          postalCode: '10022',
          location: { latitude: 40.785091, longitude: -73.968285 },
        },
      },
      priceRanges: [
        { type: PriceRangeType.PRICE_RANGE_TYPE_STANDARD, min: usd(2550), max: usd(12000) },
      ],
      promoter: { id: 'P-1', names: { values: { 'en-us': 'Live Co' } } },
      publicVisibility: { visible: true, startDateTime: at('2026-01-01T00:00:00Z') },
      sales: { publicSale: { startDateTime: at('2026-02-01T15:00:00Z'), startTbd: false } },
      marketIds: [35, 55],
      origin: {
        kind: {
          $case: 'partnerImport',
          value: {
            partnerId: 'prt_1',
            partnerEventId: 'E-77',
            partnerVenueId: 'V-3',
            lastModification: at('2026-02-28T09:15:00Z'),
          },
        },
      },
      status: EventStatus.EVENT_STATUS_ONSALE,
      ticketing: {
        manifestId: 'M-1',
        maximumTicketsQuantity: 8,
        currency: 'USD',
        priceLevels: [{ id: 'PL1', names: { values: { 'en-us': 'Floor' } } }],
        priceTypes: [
          { id: 'PT1', regular: true },
          { id: 'PT2', accessCodeRequired: true },
        ],
        pricePeriods: [
          {
            id: 'PP1',
            startDateTime: at('2026-02-01T15:00:00Z'),
            prices: [{ priceLevelId: 'PL1', priceTypeId: 'PT1', amount: usd(4500) }],
          },
        ],
      },
      createdAt: at('2026-02-28T09:16:00Z'),
      updatedAt: at('2026-03-01T10:00:00.123Z'),
    },
  });

const samples: ReadonlyArray<readonly [TopicDef<never>, unknown]> = [
  sample(eventChangedTopic, anEventChanged()),
  sample(
    availabilityChangedTopic,
    AvailabilityChanged.fromPartial({
      eventId: 'G5vYZ9abcdEFgh1',
      partnerId: 'prt_1',
      partnerEventId: 'E-77',
      scope: SyncScope.SYNC_SCOPE_FULL,
      areas: [
        {
          areaId: 'A1',
          levelId: 'L1',
          sectionId: 'S101',
          priceLevelId: 'PL1',
          available: 2,
          unavailable: 98,
          availableSeats: [{ id: 'seat-1', row: 'C', number: '7' }],
        },
        { areaId: 'GA', generalAdmission: true, available: 500 },
      ],
      totalAvailable: 502,
      observedAt: at('2026-03-01T10:00:00Z'),
      // Above 2^32 so that a 32-bit truncation of int64 would be visible.
      sequence: 2 ** 40 + 3,
    }),
  ),
  sample(
    dealChangedTopic,
    DealChanged.fromPartial({
      deal: {
        id: 'deal-1',
        eventId: 'G5vYZ9abcdEFgh1',
        name: 'Early bird',
        description: '20% off',
        offerCode: 'EARLY20',
        exclusivity: Exclusivity.EXCLUSIVITY_EXCLUSIVE,
        state: DealState.DEAL_STATE_ENDED,
        version: 3,
        createdAt: at('2026-01-01T00:00:00Z'),
        updatedAt: at('2026-01-05T00:00:00Z'),
      },
      changedAt: at('2026-01-05T00:00:00Z'),
    }),
  ),
  sample(
    appAuthorizedTopic,
    AppAuthorized.fromPartial({
      clientId: 'cid-1',
      appId: 'app-1',
      fanId: 'fan-1',
      userId: 'a3f1c0',
      scope: 'all',
      authorizedAt: at('2026-03-01T10:00:00Z'),
    }),
  ),
  sample(
    fanDeletedTopic,
    FanDeleted.fromPartial({
      fanId: '3f2a6c1e-8d7b-4b5a-9c1d-2e3f4a5b6c7d',
      deletedAt: at('2026-03-02T10:00:00Z'),
    }),
  ),
  sample(
    bookingHeldTopic,
    BookingHeld.fromPartial({
      cartId: 'cart-1',
      eventId: 'G5vYZ9abcdEFgh1',
      partnerId: 'prt_1',
      inventoryToken: 'tok-1',
      items: [
        {
          areaId: 'A1',
          section: '101',
          row: 'C',
          seats: ['7', '8'],
          priceLevelId: 'PL1',
          priceTypeId: 'PT1',
          quantity: 2,
          unitPrice: usd(4500),
          inventoryType: InventoryType.INVENTORY_TYPE_PRIMARY,
        },
      ],
      total: usd(9000),
      heldAt: at('2026-03-01T10:00:00Z'),
      expiresAt: at('2026-03-01T10:10:00Z'),
      appId: 'app-1',
    }),
  ),
  sample(
    bookingReleasedTopic,
    BookingReleased.fromPartial({
      cartId: 'cart-1',
      eventId: 'G5vYZ9abcdEFgh1',
      partnerId: 'prt_1',
      inventoryToken: 'tok-1',
      reason: ReleaseReason.RELEASE_REASON_PAYMENT_FAILED,
      releasedAt: at('2026-03-01T10:05:00Z'),
    }),
  ),
  sample(
    bookingExpiredTopic,
    BookingExpired.fromPartial({
      cartId: 'cart-2',
      eventId: 'G5vYZ9abcdEFgh1',
      partnerId: 'prt_1',
      inventoryToken: 'tok-2',
      expiredAt: at('2026-03-01T10:10:00Z'),
    }),
  ),
  sample(
    orderConfirmedTopic,
    OrderConfirmed.fromPartial({
      orderId: 'ord-1',
      cartId: 'cart-1',
      eventId: 'G5vYZ9abcdEFgh1',
      partnerId: 'prt_1',
      inventoryToken: 'tok-1',
      inventoryOrderId: 'INV-9',
      appId: 'app-1',
      tickets: [
        { ticketId: 'T-1', seat: '7', item: { areaId: 'A1', quantity: 1, unitPrice: usd(4500) } },
        { ticketId: 'T-2', seat: '8', item: { areaId: 'A1', quantity: 1, unitPrice: usd(4500) } },
      ],
      ticketsAmount: usd(9000),
      fees: usd(1200),
      taxes: usd(0),
      delivery: usd(-100),
      grandTotal: usd(10100),
      paymentMethod: PaymentMethodType.PAYMENT_METHOD_TYPE_CARD,
      deliveryMethod: DeliveryMethodType.DELIVERY_METHOD_TYPE_PRINT_AT_HOME,
      sealedContact: Buffer.from([1, 3, 100, 101, 118, 9, 8, 7]),
      secureEntryEnabled: true,
      confirmedAt: at('2026-03-01T10:06:00Z'),
    }),
  ),
  sample(
    orderCancelledTopic,
    OrderCancelled.fromPartial({
      orderId: 'ord-1',
      eventId: 'G5vYZ9abcdEFgh1',
      partnerId: 'prt_1',
      inventoryOrderId: 'INV-9',
      reason: CancelReason.CANCEL_REASON_EVENT_CANCELLED,
      detail: 'event cancelled by promoter',
      cancelledAt: at('2026-04-01T00:00:00Z'),
    }),
  ),
  sample(
    orderPrintedTopic,
    OrderPrinted.fromPartial({
      orderId: 'ord-1',
      eventId: 'G5vYZ9abcdEFgh1',
      partnerId: 'prt_1',
      inventoryOrderId: 'INV-9',
      action: PrintAction.PRINT_ACTION_ROLLBACK_PRINT,
      recordedAt: at('2026-03-02T00:00:00Z'),
    }),
  ),
  sample(
    paymentCapturedTopic,
    PaymentCaptured.fromPartial({
      cartId: 'cart-1',
      orderId: 'ord-1',
      eventId: 'G5vYZ9abcdEFgh1',
      partnerId: 'prt_1',
      appId: 'app-1',
      provider: 'stripe',
      paymentId: 'pi_1',
      amount: usd(10100),
      capturedAt: at('2026-03-01T10:06:00Z'),
    }),
  ),
  sample(
    paymentRefundedTopic,
    PaymentRefunded.fromPartial({
      orderId: 'ord-1',
      eventId: 'G5vYZ9abcdEFgh1',
      partnerId: 'prt_1',
      appId: 'app-1',
      provider: 'stripe',
      paymentId: 'pi_1',
      refundId: 're_1',
      amount: usd(10100),
      refundedTotal: usd(10100),
      status: 'succeeded',
      source: 'cancel',
      refundedAt: at('2026-04-01T00:00:05Z'),
    }),
  ),
  sample(
    queueOpenedTopic,
    QueueOpened.fromPartial({
      eventId: 'G5vYZ9abcdEFgh1',
      opensAt: at('2026-05-01T10:00:00Z'),
      frozenAt: at('2026-05-01T10:00:02Z'),
      earlyCount: 10_000,
    }),
  ),
  sample(
    queueAdmittedTopic,
    QueueAdmitted.fromPartial({
      eventId: 'G5vYZ9abcdEFgh1',
      queueTicketId: 'q_abcdefghijklmnopqrstuvwxyz0',
      appId: 'app-1',
      rank: 42,
      admittedAt: at('2026-05-01T10:00:30Z'),
      waitedMs: 30_000,
    }),
  ),
  sample(
    ticketIssuedTopic,
    TicketIssued.fromPartial({
      orderId: 'ord-1',
      eventId: 'G5vYZ9abcdEFgh1',
      tickets: [
        {
          ticketId: 'tk-1',
          partnerTicketId: 'T-1',
          displayId: '****1234',
          section: '101',
          row: 'C',
          seat: '7',
          renderType: RenderType.RENDER_TYPE_ROTATING_SYMBOLOGY,
          tokenAvailableAt: at('2026-05-31T00:00:00Z'),
        },
      ],
      issuedAt: at('2026-03-01T10:07:00Z'),
    }),
  ),
  sample(
    ticketVoidedTopic,
    TicketVoided.fromPartial({
      orderId: 'ord-1',
      eventId: 'G5vYZ9abcdEFgh1',
      ticketIds: ['tk-1', 'tk-2'],
      reason: VoidReason.VOID_REASON_ORDER_CANCELLED,
      voidedAt: at('2026-04-01T00:01:00Z'),
    }),
  ),
  sample(
    ticketScannedTopic,
    TicketScanned.fromPartial({
      ticketId: 'tk-1',
      orderId: 'ord-1',
      eventId: 'G5vYZ9abcdEFgh1',
      gateId: 'gate-1',
      result: ScanResult.SCAN_RESULT_ADMITTED,
      timeStep: 118_666_667,
      scannedAt: at('2026-06-01T19:00:05Z'),
    }),
  ),
  sample(
    partnerHealthChangedTopic,
    PartnerHealthChanged.fromPartial({
      partnerId: 'prt_1',
      previous: PartnerHealth.PARTNER_HEALTH_HEALTHY,
      current: PartnerHealth.PARTNER_HEALTH_SYNC_REQUIRED,
      healthcheckId: 902,
      message: 'sync please',
      venuesToSync: ['V-3', 'V-4'],
      checkedAt: at('2026-03-01T10:00:00Z'),
    }),
  ),
  sample(
    partnerCallFailedTopic,
    PartnerCallFailed.fromPartial({
      partnerId: 'prt_1',
      operation: PartnerOperation.PARTNER_OPERATION_CANCEL_ORDER,
      orderId: 'ord-1',
      eventId: 'G5vYZ9abcdEFgh1',
      inventoryOrderId: 'INV-9',
      httpStatus: 0,
      message: 'ETIMEDOUT',
      attempt: 3,
      willRetry: true,
      outcomeUnknown: true,
      correlationId: 'corr-1',
      failedAt: at('2026-04-01T00:00:05Z'),
    }),
  ),
  sample(
    reconciliationResolvedTopic,
    ReconciliationResolved.fromPartial({
      case: {
        id: 'case-1',
        partnerId: 'prt_1',
        eventId: 'G5vYZ9abcdEFgh1',
        orderId: 'ord-1',
        inventoryOrderId: 'INV-9',
        trigger: CaseTrigger.CASE_TRIGGER_PARTNER_CALL_FAILED,
        outcome: Outcome.OUTCOME_ORDER_CANCELLED,
        detail: 'partner had the order; cancelled',
        openedAt: at('2026-04-01T00:00:06Z'),
        resolvedAt: at('2026-04-01T00:02:00Z'),
      },
    }),
  ),
];

/** Pairs a topic with a sample of its own message type (checked by the compiler). */
function sample<T>(topic: TopicDef<T>, value: T): readonly [TopicDef<never>, unknown] {
  return [topic as unknown as TopicDef<never>, value];
}

describe('topic codecs', () => {
  it('has a sample for every topic of the catalog', () => {
    expect(samples.map(([t]) => t.name).sort()).toEqual(allTopics.map((t) => t.name).sort());
  });

  it.each(samples.map(([topic, value]) => [topic.name, topic, value] as const))(
    '%s round-trips a fully populated message',
    (_name, topic, value) => {
      const sut = topic.codec as unknown as TopicDef<unknown>['codec'];

      const bytes = sut.encode(value);
      const decoded = sut.decode(bytes);

      expect(bytes).toBeInstanceOf(Uint8Array);
      expect(bytes.length).toBeGreaterThan(20);
      expect(decoded).toEqual(value);
      // Re-encoding the decoded value gives the same bytes: nothing was dropped into unknown fields.
      expect(sut.encode(decoded)).toEqual(bytes);
    },
  );

  it('keeps event-changed oneofs, dates and maps intact', () => {
    const sut = eventChangedTopic.codec;
    const original = anEventChanged();

    const decoded = sut.decode(sut.encode(original));

    expect(decoded.event?.location?.$case).toBe('place');
    expect(decoded.event?.origin?.kind?.$case).toBe('partnerImport');
    expect(decoded.event?.attractions[1]?.ref).toEqual({
      $case: 'source',
      value: { id: 'band-9', name: 'acme' },
    });
    expect(decoded.changedAt).toBeInstanceOf(Date);
    expect(decoded.changedAt?.toISOString()).toBe('2026-03-01T10:00:00.123Z');
    expect(decoded.event?.names?.values['fr-ca']).toBe('Soirée rock');
    expect(decoded.event?.priceRanges[0]?.min).toEqual({ amountMinor: 2550, currency: 'USD' });
  });

  it('decodes empty bytes to a message of defaults', () => {
    // An empty value is a valid protobuf message (all defaults); tombstones are null values in the
    // bus, never empty bytes, so this only documents what a consumer sees for `new Uint8Array()`.
    const decoded = dealChangedTopic.codec.decode(new Uint8Array());

    expect(decoded).toEqual({ deal: undefined, changedAt: undefined });
  });

  it('rejects int64 values beyond Number.MAX_SAFE_INTEGER instead of losing precision (forceLong=number)', () => {
    // Field 8 (sequence), varint 2^60: hand-encoded because the TS type cannot express it safely.
    const tooBig = Uint8Array.from([0x40, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10]);

    expect(() => availabilityChangedTopic.codec.decode(tooBig)).toThrow(/MAX_SAFE_INTEGER/);
  });
});

describe('topic catalog', () => {
  it('has unique kebab-case names without environment prefixes or dlq twins', () => {
    const names = allTopics.map((t) => t.name);

    expect(new Set(names).size).toBe(names.length);
    for (const name of names) {
      expect(name).toMatch(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
    }
  });

  it('compacts only event-changed, which is kept forever', () => {
    expect(allTopics.filter((t) => t.compacted).map((t) => t.name)).toEqual(['event-changed']);
    expect(eventChangedTopic.retentionMs).toBe(-1);
    for (const t of allTopics.filter((x) => !x.compacted)) {
      expect(t.retentionMs).toBeGreaterThan(0);
    }
  });

  it('names, as ce_type, a message that its proto file declares in its package', () => {
    for (const t of allTopics) {
      const proto = readFileSync(new URL(`proto/${t.protoFile}`, repoRoot), 'utf8');
      const pkg = /^package\s+([\w.]+);/m.exec(proto)?.[1];
      const messageName = t.type.slice(t.type.lastIndexOf('.') + 1);

      expect(`${pkg}.${messageName}`, t.name).toBe(t.type);
      expect(proto, t.name).toMatch(new RegExp(`^message ${messageName} \\{`, 'm'));
      // Analytics teams decode from the .proto alone: the message must say which topic it is.
      expect(proto, t.name).toContain(`Topic \`${t.name}\``);
    }
  });

  it('matches the topic table of docs/topics.md', () => {
    const doc = readFileSync(new URL('docs/topics.md', repoRoot), 'utf8');
    // The first table of the page, up to the next section.
    const table = doc.slice(doc.indexOf('\n| topic'), doc.indexOf('\n## '));
    const rows = table
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    const unquote = (cell: string) => cell.replace(/^`|`$/g, '');
    const documented = rows.map(
      ([
        ,
        topic = '',
        producer = '',
        key = '',
        type = '',
        compacted = '',
        retention = '',
        consumers = '',
      ]) => ({
        name: unquote(topic),
        producer,
        keyDescription: key,
        type: unquote(type),
        compacted: compacted === 'yes',
        retention,
        consumers: consumers === '—' ? [] : consumers.split(', '),
      }),
    );

    const days = (ms: number) => ms / (24 * 60 * 60 * 1000);
    const actual = allTopics.map((t) => ({
      name: t.name,
      producer: t.producer,
      keyDescription: t.keyDescription,
      type: t.type,
      compacted: t.compacted,
      retention:
        t.retentionMs === -1
          ? 'forever'
          : `${days(t.retentionMs)} ${days(t.retentionMs) === 1 ? 'day' : 'days'}`,
      consumers: [...t.consumers],
    }));

    expect(actual).toEqual(documented);
  });

  it('looks topics up by name', () => {
    expect(getTopic('order-confirmed')).toBe(orderConfirmedTopic);
    expect(findTopic('order-confirmed.dlq')).toBeUndefined();
    expect(() => getTopic('orders')).toThrow(/unknown topic "orders"/);
  });

  it('is immutable', () => {
    expect(Object.isFrozen(allTopics)).toBe(true);
    expect(Object.isFrozen(eventChangedTopic)).toBe(true);
    expect(Object.isFrozen(eventChangedTopic.codec)).toBe(true);
  });
});
