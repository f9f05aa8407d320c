import { beforeEach, describe, expect, it } from 'vitest';
import { createServiceStores } from '@marquee/platform/store';
import { OrderConfirmed, InventoryType } from '@marquee/proto/cart/v1';
import { ScanResult, TicketScanned } from '@marquee/proto/entry/v1';
import { ticketScannedTopic } from '@marquee/proto/topics';
import { offerId } from '../src/domain/offer-ids.js';
import { createSandboxProcessor } from '../src/adapters/sandbox-processor.js';
import { createCartStorage } from '../src/adapters/stores.js';
import { CartApp, type BillingInput } from '../src/app/index.js';
import { DEFAULT_FEES, ticketPrice } from '../src/domain/pricing.js';
import type { ResaleListing } from '../src/top-picks/domain/listing.js';
import { EventProjectionStore } from '../src/adapters/event-projection-store.js';
import {
  cartOrderLookup,
  composeTopPicks,
  connectorLiveSeats,
  createTopPicksStorage,
  projectionEventSource,
  type TopPicksApp,
} from '../src/top-picks/index.js';
import { SESSION_EXPIRED_MESSAGE } from '../src/top-picks/domain/fan-session.js';
import {
  topPicksAnswer,
  type EmbeddedOffer,
} from '../src/top-picks/ports/grpc/top-picks-answer.js';
import { area, availability, EVENT_ID, partnerEvent } from './support/events.js';
import { FakeConnector } from './support/fake-connector.js';
import { cartAppDefaults, silent } from './support/cart-app.js';

/**
 * Top picks and resale through the cart: a primary order is listed for resale, a fan sees it in
 * top picks under a fan session, reserves it at the price shown, pays and commits; the listing is
 * sold once and its tickets change owner (order-confirmed names the seller's tickets).
 */
const seller = { appId: 'seller-app', sandbox: false, channel: 'partner-cart' as const };
const buyer = { appId: 'buyer-app', sandbox: false, channel: 'partner-cart' as const };
const HOUR = 3_600_000;

const billing = (amountMinor: number, thirdPartyAccountId: string): BillingInput => ({
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.test',
  type: 'CC',
  reference: 'ref',
  countryCode: 'GB',
  amountMinor,
  currency: 'GBP',
  cardNonce: 'fake-valid-nonce',
  cin: '123',
  expireMonth: 12,
  expireYear: 2032,
  thirdPartyAccountId,
});

interface Setup {
  cart: CartApp;
  picks: TopPicksApp;
  /** `ticket-scanned` as cart's consumer gets it. */
  ticketScanned: ReturnType<typeof composeTopPicks>['ticketScanned'];
  /** Seats secure-entry reports admitted, as `<event id>|<ticket id>`. */
  admitted: Set<string>;
  /** Runs before secure-entry answers its n-th question (1-based). */
  beforeAnswer: { run: (n: number) => void };
  clock: { t: Date };
  outbox: () => Promise<{ topic: string; value: Uint8Array | null }[]>;
}

async function setup(): Promise<Setup> {
  const clock = { t: new Date('2030-06-01T12:00:00Z') };
  const now = () => clock.t;
  const stores = createServiceStores(undefined);
  const storage = createCartStorage(stores, { sandboxAreaCapacity: 100 });
  const topPicksStorage = createTopPicksStorage(stores);
  const events = new EventProjectionStore(storage.events, now);
  await events.applyEvent(partnerEvent());
  await events.applyAvailability(
    availability(1, [
      area({ available: 8, unavailable: 0 }),
      area({ areaId: 'A2', sectionId: 'S2', priceLevelId: 'PL2', available: 8 }),
    ]),
  );
  const connector = new FakeConnector(10, now);
  const admitted = new Set<string>();
  const beforeAnswer: Setup['beforeAnswer'] = { run: () => undefined };
  let questions = 0;
  const topPicks = composeTopPicks({
    admittedSeats: {
      admitted: async (eventId, ids) => {
        beforeAnswer.run(++questions);
        return ids.filter((id) => admitted.has(`${eventId}|${id}`));
      },
    },
    storage: topPicksStorage,
    events: projectionEventSource(events, { fees: DEFAULT_FEES, now }),
    orders: cartOrderLookup(storage.orders),
    liveSeats: connectorLiveSeats(connector),
    logger: silent as never,
    clock: { now },
  });
  const processor = createSandboxProcessor({ timeoutMs: 5 });
  const cart = new CartApp({
    ...storage,
    events,
    resale: topPicks.app,
    connector,
    processor,
    sandboxProcessor: processor,
    ...cartAppDefaults(now),
  });
  const outbox = async () =>
    (await Promise.all(stores.outboxSources.map((s) => s.pendingOutbox(1_000))))
      .flat()
      .flatMap((p) => p.events.map((e) => ({ topic: e.topic, value: e.value })));
  return {
    cart,
    picks: topPicks.app,
    ticketScanned: topPicks.ticketScanned,
    admitted,
    beforeAnswer,
    clock,
    outbox,
  };
}

/** Reserve, pay and commit; resolves the order. */
async function buy(
  s: Setup,
  owner: typeof seller,
  requests: Parameters<CartApp['reserve']>[0]['requests'],
  fanSessionId = '',
) {
  const held = await s.cart.reserve({ owner, eventId: EVENT_ID, requests, fanSessionId });
  const paid = await s.cart.addPayment(
    owner,
    held.cart.id,
    billing(held.priced.totals.unpaid, `${owner.appId}-fan`),
  );
  const committed = await s.cart.commit(owner, paid.cart.id);
  return { held, order: committed.order };
}

type Shown = EmbeddedOffer[];

/** The price of an offer's tickets before fees (its face value charge) as top picks shows it. */
const shownPrice = (offers: Shown, id: string): number =>
  offers.find((o) => o.offerId === id)!.charges.find((c) => c.type === 'face_value')!.amount
    .amountMinor;

/** What a cart of `quantity` tickets of the offer charges, read from the offer as shown. */
const shownCartTotal = (offers: Shown, id: string, quantity: number): number => {
  const offer = offers.find((o) => o.offerId === id)!;
  const perOrder = offer.charges
    .filter((c) => c.feeType === 'per order')
    .reduce((sum, c) => sum + c.amount.amountMinor, 0);
  return offer.totalPrice.amountMinor * quantity + perOrder;
};

/** The app's picks with the offers, event details and messages the ports answer with them. */
const topPicks = async (s: Setup, fanSessionId = '', appId = buyer.appId) => {
  const result = await s.picks.getTopPicks({
    appId,
    eventId: EVENT_ID,
    fanSessionId,
    quantity: 2,
    ticketTypeId: '',
    priceLevelIds: [],
    areaIds: [],
    sections: [],
    priceMin: '',
    priceMax: '',
    includeResale: true,
    page: 1,
    size: 30,
  });
  return { ...result, ...topPicksAnswer(result) };
};

describe('top picks and resale through the cart', () => {
  let s: Setup;
  let listingId: string;
  let listing: ResaleListing;
  let sellerOrderId: string;
  let ticketIds: string[];

  beforeEach(async () => {
    s = await setup();
    const { order } = await buy(s, seller, [{ tickets: [{ priceTypeId: '000001', quantity: 2 }] }]);
    sellerOrderId = order.id;
    ticketIds = order.tickets.map((t) => t.ticketId);
    listing = await s.picks.createListing({
      orderId: order.id,
      ticketIds,
      price: { amountMinor: 4_500, currency: 'GBP' },
      sellerNotes: 'Aisle seats',
    });
    listingId = listing.id;
  });

  it('shows primary picks with the commerce offer ids and the listing with its seats', async () => {
    const answer = await topPicks(s);
    expect(answer.outcome).toBe('created');
    const standard = answer.picks.items.filter((p) => p.selection === 'standard');
    expect(standard.map((p) => p.area.id).sort()).toEqual(['A1', 'A2']);
    expect(standard.every((p) => p.row === undefined && p.seats === undefined)).toBe(true);
    const resale = answer.picks.items.find((p) => p.selection === 'resale')!;
    expect(resale).toMatchObject({ offerIds: [listingId], type: 'seats' });
    expect(resale.seats).toHaveLength(2);
    const offer = answer.offers.find((o) => o.offerId === listingId)!;
    expect(offer).toMatchObject({
      ticketTypeId: listingId,
      // The asking price with the cart's per-ticket fees: 10 % service, 20 % tax on it.
      totalPrice: { amountMinor: 4_500 + 450 + 90, currency: 'GBP' },
      inventoryType: 'RESALE',
      limit: { min: 2, max: 2 },
    });
    // Primary offers total face value plus the cart's per-ticket fees (what the reserve charges).
    const primary = answer.offers.find(
      (o) => o.inventoryType === 'PRIMARY' && o.priceLevelId === 'PL1',
    )!;
    expect(primary.totalPrice.amountMinor).toBe(5_000 + 500 + 100);
    expect(primary.offerId).toBe(offerId('000001', 'PL1'));
    expect(answer.eventDetails.listingsDisclaimer).not.toBe('');
  });

  it('keeps the listing on a resale cart line: location, notes, original value, in-hand date', async () => {
    const held = await s.cart.reserve({
      owner: buyer,
      eventId: EVENT_ID,
      requests: [{ tickets: [{ priceTypeId: listingId, quantity: 2 }] }],
    });
    const seats = listing.seats;
    expect(held.priced.lines[0]!.resale).toEqual({
      location: `Section ${listing.section}, Row ${listing.row}, Seats ${seats[0]}-${seats[1]}`,
      sellerNotes: 'Aisle seats',
      originalFaceValueMinor: listing.faceValue.amountMinor,
      averageOriginalTotalMinor: ticketPrice(listing.faceValue.amountMinor, DEFAULT_FEES)
        .totalMinor,
      inHandDate: listing.createdAt.toISOString().slice(0, 10),
    });
    const again = await s.cart.get(buyer, held.cart.id);
    expect(again.priced.lines[0]!.resale?.sellerNotes).toBe('Aisle seats');
  });

  it('shows the totals a reserve under the same fan session charges (resale and primary)', async () => {
    const shown = await topPicks(s);
    const sid = shown.session.id;
    const resale = await s.cart.reserve({
      owner: buyer,
      eventId: EVENT_ID,
      requests: [{ tickets: [{ priceTypeId: listingId, quantity: 2 }] }],
      fanSessionId: sid,
    });
    expect(resale.priced.totals.grand).toBe(shownCartTotal(shown.offers, listingId, 2));
    expect(resale.priced.lines[0]!.totals.grand / 2).toBe(
      shown.offers.find((o) => o.offerId === listingId)!.totalPrice.amountMinor,
    );
    await s.cart.release(buyer, resale.cart.id);

    const primary = shown.offers.find((o) => o.inventoryType === 'PRIMARY')!;
    const held = await s.cart.reserve({
      owner: buyer,
      eventId: EVENT_ID,
      requests: [
        {
          tickets: [
            { priceTypeId: primary.ticketTypeId, priceLevelId: primary.priceLevelId, quantity: 2 },
          ],
        },
      ],
      fanSessionId: sid,
    });
    expect(held.priced.totals.grand).toBe(shownCartTotal(shown.offers, primary.offerId, 2));
  });

  /** A gate admits a seat: secure-entry knows it at once, cart when `ticket-scanned` arrives. */
  const admit = async (ticketId: string, result = ScanResult.SCAN_RESULT_ADMITTED) => {
    s.admitted.add(`${EVENT_ID}|${ticketId}`);
    const value = TicketScanned.fromPartial({
      ticketId: `${sellerOrderId}-t1`,
      partnerTicketId: ticketId,
      orderId: sellerOrderId,
      eventId: EVENT_ID,
      gateId: 'g1',
      result,
      scannedAt: s.clock.t,
    });
    await s.ticketScanned({
      topic: ticketScannedTopic.name,
      key: value.ticketId,
      value,
      time: s.clock.t,
    } as Parameters<Setup['ticketScanned']>[0]);
  };

  it('refuses to list a ticket admitted at a gate, as a failed precondition (409)', async () => {
    await s.picks.withdrawListing(listingId);
    s.admitted.add(`${EVENT_ID}|${ticketIds[1]}`);
    await expect(
      s.picks.createListing({
        orderId: sellerOrderId,
        ticketIds,
        price: { amountMinor: 4_000, currency: 'GBP' },
        sellerNotes: '',
      }),
    ).rejects.toMatchObject({
      kind: 'failed_precondition',
      details: { reason: 'ticket_admitted' },
      message: expect.stringContaining(ticketIds[1]!),
    });
    // Nothing was listed and no ticket stays claimed: the one not admitted lists alone.
    const listings = await s.picks.listListings({
      eventId: EVENT_ID,
      activeOnly: true,
      offset: 0,
      limit: 10,
    });
    expect(listings.total).toBe(0);
    const alone = await s.picks.createListing({
      orderId: sellerOrderId,
      ticketIds: [ticketIds[0]!],
      price: { amountMinor: 4_000, currency: 'GBP' },
      sellerNotes: '',
    });
    expect(alone.state).toBe('LISTED');
  });

  it('withdraws a live listing when a gate admits one of its seats, and frees its tickets', async () => {
    await admit(ticketIds[0]!, ScanResult.SCAN_RESULT_REPLAYED);
    expect((await s.picks.getListing(listingId)).state).toBe('LISTED');
    await admit(ticketIds[0]!);
    expect((await s.picks.getListing(listingId)).state).toBe('WITHDRAWN');
    expect(await s.picks.ownerOf(EVENT_ID, ticketIds[0]!)).toMatchObject({ listingId: '' });
    // Redelivered: nothing more to do.
    await admit(ticketIds[0]!);
    expect((await s.picks.getListing(listingId)).state).toBe('WITHDRAWN');
    const answer = await topPicks(s);
    expect(answer.offers.some((o) => o.offerId === listingId)).toBe(false);
  });

  it("withdraws a held listing on admission, and the holding cart's commit sells nothing", async () => {
    const held = await s.cart.reserve({
      owner: buyer,
      eventId: EVENT_ID,
      requests: [{ tickets: [{ priceTypeId: listingId, quantity: 2 }] }],
    });
    expect((await s.picks.getListing(listingId)).state).toBe('HELD');
    const paid = await s.cart.addPayment(
      buyer,
      held.cart.id,
      billing(held.priced.totals.unpaid, 'buyer-app-fan'),
    );
    await admit(ticketIds[1]!);
    expect((await s.picks.getListing(listingId)).state).toBe('WITHDRAWN');
    await expect(s.cart.commit(buyer, paid.cart.id)).rejects.toBeDefined();
    expect((await s.picks.getListing(listingId)).state).toBe('WITHDRAWN');
    expect(await s.picks.ownerOf(EVENT_ID, ticketIds[1]!)).toMatchObject({
      orderId: sellerOrderId,
      listingId: '',
    });
  });

  it('takes a listing back off sale when a seat was admitted while it was being made', async () => {
    await s.picks.withdrawListing(listingId);
    // secure-entry admits the seat after the first question, before the listing is inserted
    // (the `ticket-scanned` record of it found no listing to withdraw).
    let first = 0;
    s.beforeAnswer.run = (n) => {
      if (first === 0) first = n;
      else if (n === first + 1) s.admitted.add(`${EVENT_ID}|${ticketIds[0]}`);
    };
    await expect(
      s.picks.createListing({
        orderId: sellerOrderId,
        ticketIds,
        price: { amountMinor: 4_000, currency: 'GBP' },
        sellerNotes: '',
      }),
    ).rejects.toMatchObject({ kind: 'failed_precondition' });
    const { listings } = await s.picks.listListings({
      eventId: EVENT_ID,
      activeOnly: false,
      offset: 0,
      limit: 10,
    });
    expect(listings.map((l) => l.state)).toEqual(['WITHDRAWN', 'WITHDRAWN']);
  });

  it('keeps the price shown under the live session, and sells the listing once', async () => {
    const first = await topPicks(s);
    const sid = first.session.id;
    // The seller withdraws and lists again at 90.00: a new listing, shown at its own price.
    await s.picks.withdrawListing(listingId);
    const relisted = await s.picks.createListing({
      orderId: sellerOrderId,
      ticketIds,
      price: { amountMinor: 9_000, currency: 'GBP' },
      sellerNotes: '',
    });
    const again = await topPicks(s, sid);
    expect(again.outcome).toBe('active');
    expect(again.session.id).toBe(sid);
    expect(shownPrice(again.offers, relisted.id)).toBe(9_000);

    const { held, order } = await buy(
      s,
      buyer,
      [{ tickets: [{ priceTypeId: relisted.id, quantity: 2 }] }],
      sid,
    );
    expect(held.priced.totals.merchandise).toBe(18_000);
    expect(held.cart.tickets.map((t) => t.ticketId).sort()).toEqual([...ticketIds].sort());
    expect(order.resoldTicketIds?.sort()).toEqual([...ticketIds].sort());
    expect(order.resoldFromOrderId).toBe(sellerOrderId);
    expect((await s.picks.getListing(relisted.id)).state).toBe('SOLD');
    expect(await s.picks.ownerOf(EVENT_ID, ticketIds[0]!)).toMatchObject({
      orderId: order.id,
      ownerAppId: 'buyer-app',
      thirdPartyAccountId: 'buyer-app-fan',
      previous: [{ orderId: sellerOrderId, listingId: relisted.id }],
    });
    const confirmed = (await s.outbox())
      .filter((e) => e.topic === 'order-confirmed')
      .map((e) => OrderConfirmed.decode(e.value!))
      .find((m) => m.orderId === order.id)!;
    expect(confirmed.resoldTicketIds.sort()).toEqual([...ticketIds].sort());
    expect(confirmed.resoldFromOrderId).toBe(sellerOrderId);
    expect(
      confirmed.tickets.every((t) => t.item?.inventoryType === InventoryType.INVENTORY_TYPE_RESALE),
    ).toBe(true);

    // Sold: nobody can hold it again, and the seller cannot list the tickets any more.
    await expect(
      s.cart.reserve({
        owner: seller,
        eventId: EVENT_ID,
        requests: [{ tickets: [{ priceTypeId: relisted.id, quantity: 2 }] }],
      }),
    ).rejects.toMatchObject({ kind: 'resource_exhausted', details: { reason: '20052' } });
    await expect(
      s.picks.createListing({
        orderId: sellerOrderId,
        ticketIds,
        price: { amountMinor: 1, currency: 'GBP' },
        sellerNotes: '',
      }),
    ).rejects.toMatchObject({ kind: 'failed_precondition' });
    // The buyer can resell them from the new order.
    const resold = await s.picks.createListing({
      orderId: order.id,
      ticketIds,
      price: { amountMinor: 9_500, currency: 'GBP' },
      sellerNotes: '',
    });
    expect(resold.orderId).toBe(order.id);
  });

  it('keeps the lower price the fan saw when the listing gets dearer, not after expiry', async () => {
    const first = await topPicks(s);
    const sid = first.session.id;
    expect(shownPrice(first.offers, listingId)).toBe(4_500);
    // The seller's price goes up (as an operator would re-price it in the store).
    await raisePrice(s, listingId, 7_000);
    const live = await topPicks(s, sid);
    expect(shownPrice(live.offers, listingId)).toBe(4_500);
    const held = await s.cart.reserve({
      owner: buyer,
      eventId: EVENT_ID,
      requests: [{ tickets: [{ priceTypeId: listingId, quantity: 2 }] }],
      fanSessionId: sid,
    });
    expect(held.priced.totals.merchandise).toBe(9_000);
    await s.cart.release(buyer, held.cart.id);

    // An hour later the session has expired: renewed with the same id, the message, the new price.
    s.clock.t = new Date(s.clock.t.getTime() + HOUR);
    const renewed = await topPicks(s, sid);
    expect(renewed.outcome).toBe('renewed');
    expect(renewed.session.id).toBe(sid);
    expect(renewed.messages).toEqual([SESSION_EXPIRED_MESSAGE]);
    expect(shownPrice(renewed.offers, listingId)).toBe(7_000);
    // Without a session the asking price.
    const noSession = await s.cart.reserve({
      owner: buyer,
      eventId: EVENT_ID,
      requests: [{ tickets: [{ priceTypeId: listingId, quantity: 2 }] }],
    });
    expect(noSession.priced.totals.merchandise).toBe(14_000);
  });

  it('lets one of two racing carts hold the listing, and puts it back on release and expiry', async () => {
    const reserve = () =>
      s.cart.reserve({
        owner: buyer,
        eventId: EVENT_ID,
        requests: [{ tickets: [{ priceTypeId: listingId, quantity: 2 }] }],
      });
    const results = await Promise.allSettled([reserve(), reserve(), reserve()]);
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect(
      results
        .filter((r) => r.status === 'rejected')
        .map((r) => (r as PromiseRejectedResult).reason.kind),
    ).toEqual(['resource_exhausted', 'resource_exhausted']);
    const cartId = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof reserve>>>).value
      .cart.id;
    expect((await s.picks.getListing(listingId)).state).toBe('HELD');
    await s.cart.release(buyer, cartId);
    expect((await s.picks.getListing(listingId)).state).toBe('LISTED');
    const again = await reserve();
    s.clock.t = new Date(s.clock.t.getTime() + 11 * 60_000);
    await s.cart.sweep();
    expect((await s.cart.get(buyer, again.cart.id)).cart.status).toBe('EXPIRED');
    expect((await s.picks.getListing(listingId)).state).toBe('LISTED');
  });

  it('publishes no booking-held, booking-released or booking-expired for a resale cart', async () => {
    // The primary purchase of beforeEach held a partner booking: one booking-held, nothing else.
    const bookingTopics = async () =>
      (await s.outbox()).map((e) => e.topic).filter((t) => t.startsWith('booking-'));
    expect(await bookingTopics()).toEqual(['booking-held']);
    const reserve = () =>
      s.cart.reserve({
        owner: buyer,
        eventId: EVENT_ID,
        requests: [{ tickets: [{ priceTypeId: listingId, quantity: 2 }] }],
      });
    const released = await reserve();
    expect(released.cart.inventoryToken).toBe('');
    await s.cart.release(buyer, released.cart.id);
    const expired = await reserve();
    s.clock.t = new Date(s.clock.t.getTime() + 11 * 60_000);
    expect(await s.cart.sweep()).toBeGreaterThan(0);
    expect((await s.cart.get(buyer, expired.cart.id)).cart.status).toBe('EXPIRED');
    expect(await bookingTopics()).toEqual(['booking-held']);
  });

  it('refuses mixed, partial, sandbox and unknown resale reserves as invalid input', async () => {
    const invalid = { kind: 'invalid_argument', details: { reason: '10002' } };
    await expect(
      s.cart.reserve({
        owner: buyer,
        eventId: EVENT_ID,
        requests: [
          {
            tickets: [
              { priceTypeId: listingId, quantity: 2 },
              { priceTypeId: '000001', quantity: 1 },
            ],
          },
        ],
      }),
    ).rejects.toMatchObject(invalid);
    await expect(
      s.cart.reserve({
        owner: buyer,
        eventId: EVENT_ID,
        requests: [{ tickets: [{ priceTypeId: listingId, quantity: 1 }] }],
      }),
    ).rejects.toMatchObject(invalid);
    await expect(
      s.cart.reserve({
        owner: { ...buyer, sandbox: true },
        eventId: EVENT_ID,
        requests: [{ tickets: [{ priceTypeId: listingId, quantity: 2 }] }],
      }),
    ).rejects.toMatchObject(invalid);
    await expect(
      s.cart.reserve({
        owner: buyer,
        eventId: EVENT_ID,
        requests: [{ tickets: [{ priceTypeId: `${EVENT_ID}.${'B'.repeat(22)}`, quantity: 2 }] }],
      }),
    ).rejects.toMatchObject(invalid);
    expect((await s.picks.getListing(listingId)).state).toBe('LISTED');
  });

  it('refuses listings of unknown, unconfirmed or foreign tickets, and double listings', async () => {
    const price = { amountMinor: 100, currency: 'GBP' };
    await expect(
      s.picks.createListing({ orderId: 'nope', ticketIds, price, sellerNotes: '' }),
    ).rejects.toMatchObject({ kind: 'not_found' });
    await expect(
      s.picks.createListing({ orderId: sellerOrderId, ticketIds: ['x'], price, sellerNotes: '' }),
    ).rejects.toMatchObject({ kind: 'failed_precondition' });
    await expect(
      s.picks.createListing({
        orderId: sellerOrderId,
        ticketIds: [ticketIds[0]!],
        price,
        sellerNotes: '',
      }),
    ).rejects.toMatchObject({ kind: 'failed_precondition' });
    await expect(
      s.picks.createListing({
        orderId: sellerOrderId,
        ticketIds,
        price: { amountMinor: 100, currency: 'EUR' },
        sellerNotes: '',
      }),
    ).rejects.toMatchObject({ kind: 'invalid_argument' });
    // Withdrawn: the tickets can be listed again.
    await s.picks.withdrawListing(listingId);
    const again = await s.picks.createListing({
      orderId: sellerOrderId,
      ticketIds,
      price,
      sellerNotes: '',
    });
    expect(again.state).toBe('LISTED');
    // Concurrent listings of the same tickets: one wins.
    await s.picks.withdrawListing(again.id);
    const racing = await Promise.allSettled(
      [1, 2, 3].map(() =>
        s.picks.createListing({ orderId: sellerOrderId, ticketIds, price, sellerNotes: '' }),
      ),
    );
    expect(racing.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });
});

/** The listing's asking price changes (no API for it: withdraw-and-relist is; this is the store). */
async function raisePrice(s: Setup, id: string, amountMinor: number): Promise<void> {
  const deps = (
    s.picks as unknown as {
      deps: {
        listings: {
          get(id: string): Promise<{ version: number } & Record<string, unknown>>;
          update(l: object, v: number): Promise<unknown>;
        };
      };
    }
  ).deps;
  const current = await deps.listings.get(id);
  const { version, ...listing } = current;
  await deps.listings.update({ ...listing, price: { amountMinor, currency: 'GBP' } }, version);
}
