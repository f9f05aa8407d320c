import { DEVELOPMENT_CONTACT_KEYS, openOrderContact } from '@marquee/proto/order-contact';
import { priceLevelNumber } from '@marquee/platform/money';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createIdempotency,
  idempotencyIndexes,
  type IdempotencyRecord,
} from '@marquee/platform/idempotency';
import {
  createMemoryStore,
  createServiceStores,
  type ServiceStores,
} from '@marquee/platform/store';
import {
  BookingHeld,
  OrderCancelled,
  OrderConfirmed,
  ReserveCartRequest,
} from '@marquee/proto/cart/v1';
import { createSandboxProcessor } from '../src/adapters/sandbox-processor.js';
import { sha256Hasher } from '../src/adapters/secret-box.js';
import { createCartStorage } from '../src/adapters/stores.js';
import { CartApp, type BillingInput, type CartSettings } from '../src/app/index.js';
import { listedSeats, SEATS_PER_ANSWER, SEATS_PER_AREA } from '../src/app/queries/availability.js';
import { parseMaintenanceWindow } from '../src/domain/maintenance.js';
import { EventProjectionStore } from '../src/adapters/event-projection-store.js';
import { area, availability, EVENT_ID, partnerEvent } from './support/events.js';
import { FakeConnector } from './support/fake-connector.js';
import { cartAppDefaults } from './support/cart-app.js';
import { cartGrpc } from '../src/ports/grpc/cart-grpc.js';

const owner = { appId: 'app-1', sandbox: false, channel: 'partner-cart' as const };
const adult = (quantity: number) => ({ tickets: [{ priceTypeId: '000001', quantity }] });

interface Setup {
  app: CartApp;
  connector: FakeConnector;
  stores: ServiceStores;
  storage: ReturnType<typeof createCartStorage>;
  clock: { t: Date };
  events: () => Promise<{ topic: string; key: string; value: Uint8Array | null }[]>;
}

async function setup(
  options: {
    capacity?: number;
    settings?: Partial<CartSettings>;
    event?: Parameters<typeof partnerEvent>[0];
    /** Another process over the same storage (a restarted or second replica). */
    sharing?: Setup;
  } = {},
): Promise<Setup> {
  const clock = { t: options.sharing?.clock.t ?? new Date('2030-06-01T12:00:00Z') };
  const now = () => clock.t;
  const stores = options.sharing?.stores ?? createServiceStores(undefined);
  const storage =
    options.sharing?.storage ?? createCartStorage(stores, { sandboxAreaCapacity: 100 });
  const projection = new EventProjectionStore(storage.events, now);
  await projection.applyEvent(partnerEvent(options.event ?? {}));
  await projection.applyAvailability(availability(1, [area({ available: 5, unavailable: 0 })]));
  const connector = new FakeConnector(options.capacity ?? 10, now);
  const processor = createSandboxProcessor({ timeoutMs: 5 });
  const app = new CartApp({
    ...storage,
    events: projection,
    connector,
    processor,
    sandboxProcessor: processor,
    ...cartAppDefaults(now, { settings: options.settings }),
  });
  const events = async () =>
    (await Promise.all(stores.outboxSources.map((s) => s.pendingOutbox(1_000))))
      .flat()
      .flatMap((p) => p.events.map((e) => ({ topic: e.topic, key: e.key, value: e.value })));
  return { app, connector, stores, storage, clock, events };
}

const billing = (amountMinor: number, nonce = 'fake-valid-nonce'): BillingInput => ({
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.test',
  type: 'CC',
  reference: 'ref',
  countryCode: 'GB',
  amountMinor,
  currency: 'GBP',
  cardNonce: nonce,
  cin: '123',
  expireMonth: 12,
  expireYear: 2032,
  thirdPartyAccountId: 'fan-1',
});

/**
 * Reserves of one adult ticket through the app's reserve slots, their partner calls held until
 * `open`.
 */
function gatedReserves(busy: Setup) {
  let open!: () => void;
  busy.connector.gate = new Promise((resolve) => (open = resolve));
  const reserve = () =>
    busy.app.withReserveSlot(() =>
      busy.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] }),
    );
  return { open: () => open(), reserve };
}

/**
 * ReserveCart through cart's gRPC port with Idempotency-Keys (one adult ticket of each key), and
 * the key records it writes.
 */
function keyedReserves(s: Setup) {
  const records = createMemoryStore<IdempotencyRecord>({
    name: 'idempotency',
    indexes: idempotencyIndexes,
  });
  const { implementation } = cartGrpc(s.app, createIdempotency(records));
  const reserve = (key: string) =>
    new Promise<unknown>((resolve, reject) =>
      (
        implementation.reserveCart as (
          call: { request: ReserveCartRequest; getDeadline(): number },
          done: (error: unknown, response?: unknown) => void,
        ) => void
      )(
        {
          getDeadline: () => Infinity, // no deadline
          request: ReserveCartRequest.fromPartial({
            appId: 'app-1',
            eventId: EVENT_ID,
            idempotencyKey: key,
            reserves: [{ tickets: [{ id: '000001', quantity: 1 }], acceptBestAvailable: true }],
          }),
        },
        (error, response) => (error ? reject(error) : resolve(response)),
      ),
    );
  return { reserve, records };
}

describe('CartApp', () => {
  let s: Setup;
  beforeEach(async () => {
    s = await setup();
  });

  it('reserves, prices and records booking-held; another app cannot see the cart', async () => {
    const view = await s.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(2)] });
    expect(view.cart.status).toBe('HELD');
    expect(view.priced.totals).toMatchObject({
      merchandise: 10_000,
      fee: 1_250,
      tax: 250,
      grand: 11_500,
    });
    expect(view.holdSeconds).toBe(600);
    expect(view.agreements.map((a) => a.type)).toEqual(['boolean']);
    const held = (await s.events()).find((e) => e.topic === 'booking-held')!;
    expect(BookingHeld.decode(held.value!)).toMatchObject({ cartId: view.cart.id, appId: 'app-1' });
    await expect(s.app.get({ ...owner, appId: 'app-2' }, view.cart.id)).rejects.toMatchObject({
      kind: 'not_found',
    });
    await expect(s.app.get({ ...owner, sandbox: true }, view.cart.id)).rejects.toMatchObject({
      kind: 'not_found',
    });
  });

  it('takes the platform number of a price level as the level (partner cart price.id)', async () => {
    const number = String(priceLevelNumber('PL1'));
    const view = await s.app.reserve({
      owner,
      eventId: EVENT_ID,
      requests: [{ tickets: [{ priceTypeId: '000001', quantity: 2, priceLevelId: number }] }],
    });
    expect(view.cart.status).toBe('HELD');
    expect(view.cart.tickets.map((t) => t.priceLevelId)).toEqual(['PL1', 'PL1']);
    await expect(
      s.app.reserve({
        owner,
        eventId: EVENT_ID,
        requests: [{ tickets: [{ priceTypeId: '000001', quantity: 1, priceLevelId: '1' }] }],
      }),
    ).rejects.toMatchObject({ kind: 'invalid_argument', details: { reason: '10002' } });
  });

  it('lists the available seats of reserved areas in seat order, bounded', async () => {
    s.connector.seats = [
      { id: 'S1-B-1', row: 'B', number: '1' },
      { id: 'S1-A-10', row: 'A', number: '10' },
      { id: 'S1-A-2', row: 'A', number: '2' },
    ];
    const listed = await s.app.availability({ eventId: EVENT_ID, sandbox: false });
    expect(listed.areas[0]!.seats?.map((seat) => seat.id)).toEqual(['S1-A-2', 'S1-A-10', 'S1-B-1']);
    s.connector.seats = Array.from({ length: SEATS_PER_AREA + 5 }, (_, i) => ({
      id: `S1-A-${i + 1}`,
      row: 'A',
      number: String(i + 1),
    }));
    const bounded = await s.app.availability({ eventId: EVENT_ID, sandbox: false });
    expect(bounded.areas[0]!.seats).toHaveLength(SEATS_PER_AREA);
    expect(bounded.areas[0]!.seats?.at(-1)?.number).toBe(String(SEATS_PER_AREA));
    s.connector.generalAdmission = true;
    const ga = await s.app.availability({ eventId: EVENT_ID, sandbox: false });
    expect(ga.areas[0]!.seats).toEqual([]);
    const areas = Array.from({ length: SEATS_PER_ANSWER / SEATS_PER_AREA + 1 }, (_, a) => ({
      areaId: `A${a}`,
      levelId: 'L1',
      sectionId: `S${a}`,
      priceLevelId: 'PL1',
      generalAdmission: false,
      available: SEATS_PER_AREA,
      unavailable: 0,
      seats: Array.from({ length: SEATS_PER_AREA }, (_, i) => ({
        id: `A${a}-${i}`,
        row: 'A',
        number: String(i + 1),
      })),
    }));
    const listed2 = listedSeats(areas);
    expect(listed2.reduce((n, a) => n + (a.seats?.length ?? 0), 0)).toBe(SEATS_PER_ANSWER);
    expect(listed2.at(-1)!.seats).toEqual([]);
  });

  it('refuses bad input, unknown ticket types, protected types and over-limit quantities', async () => {
    await expect(
      s.app.reserve({ owner, eventId: 'short', requests: [adult(1)] }),
    ).rejects.toMatchObject({
      details: { reason: '10002' },
    });
    await expect(
      s.app.reserve({
        owner,
        eventId: EVENT_ID,
        requests: [{ tickets: [{ priceTypeId: '9', quantity: 1 }] }],
      }),
    ).rejects.toMatchObject({ kind: 'invalid_argument', details: { reason: '10002' } });
    await expect(
      s.app.reserve({
        owner,
        eventId: EVENT_ID,
        requests: [{ tickets: [{ priceTypeId: '000002', quantity: 1 }] }],
      }),
    ).rejects.toMatchObject({ kind: 'permission_denied' });
    await expect(
      s.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(9)] }),
    ).rejects.toMatchObject({
      details: { reason: '10002' },
    });
    await expect(
      s.app.reserve({ owner, eventId: 'AAAAAAAAAAAAAAA', requests: [adult(1)] }),
    ).rejects.toMatchObject({ kind: 'not_found', details: { reason: '90001' } });
  });

  it('answers sold out with 20052 and leaves nothing held', async () => {
    const small = await setup({ capacity: 1 });
    await expect(
      small.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(2)] }),
    ).rejects.toMatchObject({
      kind: 'resource_exhausted',
      details: { reason: '20052' },
    });
    expect(small.connector.held()).toBe(0);
  });

  it('answers PENDING when the partner is slow, completes in the background, and polls to HELD', async () => {
    const slow = await setup({ settings: { reserveWaitMs: 5 } });
    let open!: () => void;
    slow.connector.gate = new Promise((resolve) => (open = resolve));
    const pending = await slow.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] });
    expect(pending.cart.status).toBe('PENDING');
    expect(pending.pollAfterSeconds).toBe(1);
    open();
    await slow.app.drain();
    expect((await slow.app.get(owner, pending.cart.id)).cart.status).toBe('HELD');
  });

  it('sheds reserves beyond the in-flight limit at once, counting PENDING ones until they finish', async () => {
    const busy = await setup({ settings: { reserveWaitMs: 5, maxReservesInFlight: 2 } });
    const { open, reserve } = gatedReserves(busy);
    const first = await reserve();
    const second = await reserve();
    expect([first.cart.status, second.cart.status]).toEqual(['PENDING', 'PENDING']);

    // Both still run in the background: a third is refused before anything is written.
    await expect(reserve()).rejects.toMatchObject({
      kind: 'unavailable',
      details: { retryAfterMs: expect.any(Number) },
    });
    open();
    await busy.app.drain();
    expect(busy.connector.held()).toBe(2);

    expect((await reserve()).cart.status).toBe('HELD');
  });

  it('admits a burst of keyed reserves up to its places, and writes no key for the rest', async () => {
    // No line for a place: the rest are refused at once.
    const busy = await setup({ settings: { maxReservesInFlight: 2, reserveQueueWaitMs: 0 } });
    let open!: () => void;
    busy.connector.gate = new Promise((resolve) => (open = resolve));
    const { reserve, records } = keyedReserves(busy);

    const burst = Array.from({ length: 10 }, (_, i) => reserve(`key-${i}`));
    const outcomes = await Promise.allSettled(
      burst.map((p, i) => (i < 2 ? Promise.resolve('admitted') : p)),
    );
    const refused = outcomes.slice(2).filter((o) => o.status === 'rejected');
    expect(refused).toHaveLength(8);
    for (const o of refused)
      expect((o as PromiseRejectedResult).reason).toMatchObject({ kind: 'unavailable' });
    open();
    await Promise.all(burst.slice(0, 2));
    await busy.app.drain();
    expect(busy.connector.held()).toBe(2);
    // Only the two admitted reserves wrote their carts, which claim the keys: no key record.
    expect(await busy.storage.carts.findLive('app-1', EVENT_ID, 100)).toHaveLength(2);
    expect(await records.count()).toBe(0);
  });

  it('tells a new key "sold out" from the book without a place, even with every place taken', async () => {
    const one = await setup({ capacity: 1, settings: { maxReservesInFlight: 1 } });
    const { reserve, records } = keyedReserves(one);
    await reserve('first');
    const soldOut = { kind: 'resource_exhausted', details: { reason: '20052' } };
    await expect(reserve('second')).rejects.toMatchObject(soldOut);
    const written = await records.count();
    const asked = one.connector.calls.createBooking;

    const release = one.app.takeReserveSlot(); // every place taken
    await expect(reserve('third')).rejects.toMatchObject(soldOut);
    // A retry of a key that already ran still gets its first answer, its cart.
    await expect(reserve('first')).resolves.toMatchObject({ cart: { status: 'CART_STATUS_HELD' } });
    expect(await records.count()).toBe(written);
    expect(one.connector.calls.createBooking).toBe(asked);
    release();
  });

  it('lines up keyed reserves for a place, and answers the line from the book once sold out', async () => {
    const one = await setup({ capacity: 1, settings: { maxReservesInFlight: 1 } });
    let open!: () => void;
    one.connector.gate = new Promise((resolve) => (open = resolve));
    const { reserve, records } = keyedReserves(one);
    const first = reserve('first'); // takes the place, its partner call held
    const line = ['second', 'third', 'fourth'].map((key) => reserve(key));
    for (const p of line) p.catch(() => undefined);
    await vi.waitFor(() => expect(one.connector.calls.createBooking).toBe(1));
    open();
    await expect(first).resolves.toMatchObject({ cart: { status: 'CART_STATUS_HELD' } });
    // The place went to the first in line, whose reserve the partner refused (its one place is
    // held): the rest of the line were told so from the book, with no partner call and no cart.
    const soldOut = { kind: 'resource_exhausted', details: { reason: '20052' } };
    for (const p of line) await expect(p).rejects.toMatchObject(soldOut);
    expect(one.connector.calls.createBooking).toBe(2);
    // The keys are claimed by the carts (no key records); the only live cart is the first's.
    expect(await records.count()).toBe(0);
    expect(await one.storage.carts.findLive('app-1', EVENT_ID, 100)).toHaveLength(1);
    expect(one.connector.held()).toBe(1);
  });

  it('counts a reserve request from its start, before it has written anything', async () => {
    const busy = await setup({ settings: { maxReservesInFlight: 1 } });
    const { open, reserve } = gatedReserves(busy);
    const waiting = reserve(); // waits up to 2 s for the partner
    await expect(reserve()).rejects.toMatchObject({ kind: 'unavailable' });
    open();
    expect((await waiting).cart.status).toBe('HELD');
    expect(busy.connector.held()).toBe(1);
  });

  it('refuses reserves at once for a short while after the partner said sold out', async () => {
    const two = await setup({ capacity: 2 });
    const reserve = (quantity: number) =>
      two.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(quantity)] });
    const first = await reserve(2);
    const refused = { kind: 'resource_exhausted', details: { reason: '20052' } };
    await expect(reserve(1)).rejects.toMatchObject(refused);
    const asked = two.connector.calls.createBooking;

    // Sold out a moment ago: refused without a cart or a partner call, for any quantity as large.
    await expect(reserve(1)).rejects.toMatchObject(refused);
    await expect(reserve(3)).rejects.toMatchObject(refused);
    expect(two.connector.calls.createBooking).toBe(asked);

    // Places given back: the partner is asked again.
    await two.app.release(owner, first.cart.id);
    await two.app.drain();
    expect((await reserve(1)).cart.status).toBe('HELD');
    expect(two.connector.calls.createBooking).toBe(asked + 1);
  });

  it('remembers sold out per price level; a hold expiring or a live read reopens it', async () => {
    const two = await setup({ capacity: 2 });
    const reserve = (priceLevelId?: string) =>
      two.app.reserve({
        owner,
        eventId: EVENT_ID,
        requests: [
          {
            tickets: [
              { priceTypeId: '000001', quantity: 1, ...(priceLevelId ? { priceLevelId } : {}) },
            ],
          },
        ],
      });
    const refused = { kind: 'resource_exhausted', details: { reason: '20052' } };
    await reserve('PL1');
    await reserve('PL1');
    await expect(reserve('PL1')).rejects.toMatchObject(refused);
    const asked = two.connector.calls.createBooking;
    // PL1 is refused locally; PL2 and "any level" still go to the partner.
    await expect(reserve('PL1')).rejects.toMatchObject(refused);
    expect(two.connector.calls.createBooking).toBe(asked);
    await expect(reserve('PL2')).rejects.toMatchObject(refused);
    expect(two.connector.calls.createBooking).toBe(asked + 1);

    // A hold of this process expiring gives places back: the partner is asked again.
    two.clock.t = new Date(two.clock.t.getTime() + 601_000);
    await two.app.sweep();
    expect(two.connector.held()).toBe(0);
    expect((await reserve('PL1')).cart.status).toBe('HELD');

    // Sold out again. A live read showing none left keeps it; one showing places of PL1 (the
    // partner added some) reopens it.
    await reserve('PL1');
    await expect(reserve('PL1')).rejects.toMatchObject(refused);
    const before = two.connector.calls.createBooking;
    await two.app.availability({ eventId: EVENT_ID, sandbox: false });
    await expect(reserve('PL1')).rejects.toMatchObject(refused);
    expect(two.connector.calls.createBooking).toBe(before);
    two.connector.capacity = 3;
    await two.app.availability({ eventId: EVENT_ID, sandbox: false });
    expect((await reserve('PL1')).cart.status).toBe('HELD');
  });

  it('a reserve refused for load says overloaded (429 at the edge), not a partner failure', async () => {
    const busy = await setup({ settings: { maxReservesInFlight: 1 } });
    const { open, reserve } = gatedReserves(busy);
    const waiting = reserve();
    await expect(reserve()).rejects.toMatchObject({
      kind: 'unavailable',
      details: { reason: 'overloaded', retryAfterMs: expect.any(Number) },
    });
    open();
    await waiting;
  });

  it('a reserve the connector only ever queued out fails overloaded, nothing to release', async () => {
    const busy = await setup({ settings: { reserveAttempts: 2, reserveRetryMs: 1 } });
    busy.connector.createBooking = async () => {
      busy.connector.calls.createBooking += 1;
      throw Object.assign(new Error('the partner is at its capacity'), {
        kind: 'unavailable',
        details: { reason: 'partner-busy', retryAfterMs: 1_000 },
      });
    };
    await expect(
      busy.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] }),
    ).rejects.toMatchObject({ kind: 'unavailable', details: { reason: 'overloaded' } });
    expect(busy.connector.calls.createBooking).toBe(2);
    expect(busy.connector.calls.releaseBooking).toBe(0);
  });

  it('lets a port check the sold-out hint before any work of its own', async () => {
    const two = await setup({ capacity: 2 });
    const input = (quantity: number, sandbox = false) => ({
      owner: { ...owner, sandbox },
      eventId: EVENT_ID,
      requests: [adult(quantity)],
    });
    expect(() => two.app.refuseIfJustSoldOut(input(5))).not.toThrow();
    await two.app.reserve(input(2));
    await expect(two.app.reserve(input(1))).rejects.toMatchObject({ kind: 'resource_exhausted' });

    expect(() => two.app.refuseIfJustSoldOut(input(1))).toThrow(
      expect.objectContaining({ kind: 'resource_exhausted', code: '20052' }),
    );
    // The sandbox prefix has its own inventory: the partner's answer says nothing about it.
    expect(() => two.app.refuseIfJustSoldOut(input(1, true))).not.toThrow();
  });

  it('asks the partner again once the sold-out hint has run out', async () => {
    const one = await setup({ capacity: 1, settings: { soldOutHintMs: 2_000 } });
    const reserve = () => one.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] });
    await reserve();
    await expect(reserve()).rejects.toMatchObject({ kind: 'resource_exhausted' });
    const asked = one.connector.calls.createBooking;
    one.clock.t = new Date(one.clock.t.getTime() + 2_001);
    await expect(reserve()).rejects.toMatchObject({ kind: 'resource_exhausted' });
    expect(one.connector.calls.createBooking).toBe(asked + 1);
  });

  it('a cart released while pending gives the booking back once the partner answers', async () => {
    let open!: () => void;
    s.connector.gate = new Promise((resolve) => (open = resolve));
    const pending = await s.app.reserve({
      owner,
      eventId: EVENT_ID,
      requests: [adult(2)],
      forceAsync: true,
    });
    // Released while the partner is working on the booking.
    await vi.waitFor(() => expect(s.connector.calls.createBooking).toBe(1));
    await s.app.release(owner, pending.cart.id);
    open();
    await s.app.drain();
    expect(s.connector.held()).toBe(0);
    expect(s.connector.calls.releaseBooking).toBe(1);
    const after = await s.app.get(owner, pending.cart.id);
    expect(after.cart).toMatchObject({ status: 'RELEASED', releaseOwed: false });
  });

  it('a reserve writes its cart twice: the insert claims the attempt, the hold records it', async () => {
    const inserts = vi.spyOn(s.storage.carts, 'insert');
    const modifies = vi.spyOn(s.storage.carts, 'modify');
    const view = await s.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(2)] });
    expect(view.cart.status).toBe('HELD');
    expect(inserts).toHaveBeenCalledTimes(1);
    expect(inserts.mock.calls[0]![0]).toMatchObject({ status: 'PENDING', reserveAttempts: 1 });
    expect(inserts.mock.calls[0]![0].lines).toHaveLength(1);
    expect(modifies).toHaveBeenCalledTimes(1);
    const stored = await s.storage.carts.get(view.cart.id);
    expect(stored).toMatchObject({ status: 'HELD', reserveAttempts: 1 });
  });

  it('releases a plain hold with one write, after the partner has the booking back', async () => {
    const view = await s.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(2)] });
    const before = await s.storage.carts.get(view.cart.id);
    const modify = s.storage.carts.modify.bind(s.storage.carts);
    let heldWhenWritten: number | undefined;
    const modifies = vi.spyOn(s.storage.carts, 'modify').mockImplementation((...args) => {
      heldWhenWritten = s.connector.held();
      return modify(...args);
    });
    await s.app.release(owner, view.cart.id);
    expect(modifies).toHaveBeenCalledTimes(1);
    expect(heldWhenWritten).toBe(0);
    const after = await s.storage.carts.get(view.cart.id);
    expect(after).toMatchObject({
      status: 'RELEASED',
      releaseOwed: false,
      bookingUnknown: false,
      version: before!.version + 1,
    });
    expect(s.connector.calls.releaseBooking).toBe(1);
    expect((await s.events()).map((e) => e.topic)).toContain('booking-released');
  });

  it('a hold paid for while its release is at the partner ends released, the payment voided', async () => {
    const view = await s.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] });
    const release = s.connector.releaseBooking.bind(s.connector);
    // The payment lands between the partner's answer and the release's write.
    vi.spyOn(s.connector, 'releaseBooking').mockImplementationOnce(async (eventId, token) => {
      await release(eventId, token);
      await s.storage.carts.modify(view.cart.id, (cart) => ({
        ...cart,
        status: 'PAID',
        payment: {
          paymentId: 'sbx_race',
          type: 'CC',
          amountMinor: 100,
          issuer: 'VISA',
          maskedNumber: '************1111',
          expireMonth: 12,
          expireYear: 2031,
          status: 'AUTHORIZED',
          authorizedAt: s.clock.t,
        },
      }));
    });
    await s.app.release(owner, view.cart.id);
    const after = await s.storage.carts.get(view.cart.id);
    expect(after).toMatchObject({ status: 'RELEASED', releaseOwed: false, voidOwed: false });
    expect(after?.payment?.status).toBe('VOIDED');
    expect(s.connector.held()).toBe(0);
    expect(s.connector.calls.releaseBooking).toBe(1);
  });

  it('a cart released at once after its reserve answered ends released, nothing held', async () => {
    const pending = await s.app.reserve({
      owner,
      eventId: EVENT_ID,
      requests: [adult(2)],
      forceAsync: true,
    });
    // The insert claimed the first attempt: whatever the partner was asked is given back.
    expect(pending.cart.status).toBe('PENDING');
    await s.app.release(owner, pending.cart.id);
    await s.app.drain();
    expect(s.connector.held()).toBe(0);
    expect(s.connector.calls.releaseBooking).toBe(s.connector.calls.createBooking);
    const after = await s.app.get(owner, pending.cart.id);
    expect(after.cart).toMatchObject({ status: 'RELEASED', releaseOwed: false });
  });

  it('expires a hold: EXPIRED, booking-expired, released at the partner', async () => {
    const view = await s.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(2)] });
    s.clock.t = new Date(s.clock.t.getTime() + 601_000);
    await s.app.sweep();
    expect((await s.app.get(owner, view.cart.id)).cart.status).toBe('EXPIRED');
    expect(s.connector.held()).toBe(0);
    expect((await s.events()).map((e) => e.topic)).toContain('booking-expired');
  });

  it('ends a hold at CART_MAX_HOLD_SECONDS when the partner holds longer, and gives it back', async () => {
    s = await setup({ settings: { maxHoldSeconds: 90 } });
    const view = await s.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(2)] });
    expect(view.holdSeconds).toBe(90);
    expect(s.connector.held()).toBe(2);
    s.clock.t = new Date(s.clock.t.getTime() + 89_000);
    await s.app.sweep();
    expect((await s.app.get(owner, view.cart.id)).cart.status).toBe('HELD');
    s.clock.t = new Date(s.clock.t.getTime() + 2_000);
    await s.app.sweep();
    expect((await s.app.get(owner, view.cart.id)).cart.status).toBe('EXPIRED');
    // The partner would have held it for 600 s: the cart gave it back itself.
    expect(s.connector.held()).toBe(0);
    expect((await s.events()).map((e) => e.topic)).toContain('booking-expired');
    // A partner hold shorter than the cap is kept as it is.
    s = await setup({ settings: { maxHoldSeconds: 900 } });
    const longer = await s.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] });
    expect(longer.holdSeconds).toBe(600);
  });

  it('a declined payment leaves the cart held; its release then frees everything', async () => {
    const view = await s.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] });
    const unpaid = view.priced.totals.unpaid;
    await expect(
      s.app.addPayment(owner, view.cart.id, billing(unpaid, 'fake-processor-declined-nonce')),
    ).rejects.toMatchObject({ kind: 'failed_precondition', details: { reason: '20122' } });
    await expect(
      s.app.addPayment(owner, view.cart.id, billing(unpaid, 'fake-processor-timeout-nonce')),
    ).rejects.toMatchObject({ kind: 'unavailable', details: { reason: '20001' } });
    await expect(s.app.addPayment(owner, view.cart.id, billing(unpaid - 1))).rejects.toMatchObject({
      details: { reason: '10002', field: 'amount' },
    });
    expect((await s.app.get(owner, view.cart.id)).cart).toMatchObject({ status: 'HELD' });
    await s.app.release(owner, view.cart.id);
    expect(s.connector.held()).toBe(0);
    expect((await s.events()).map((e) => e.topic)).toContain('booking-released');
  });

  it('commits a paid cart once: order-confirmed with the token hash, the same token on a retry', async () => {
    const view = await s.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(2)] });
    await s.app.selectShipping(owner, view.cart.id, 'GB-ROYALMAIL');
    await expect(s.app.selectShipping(owner, view.cart.id, 'NOPE')).rejects.toMatchObject({
      details: { reason: '10104' },
    });
    const shipped = await s.app.get(owner, view.cart.id);
    const paid = await s.app.addPayment(owner, view.cart.id, billing(shipped.priced.totals.unpaid));
    expect(paid.cart.status).toBe('PAID');
    expect(paid.cart.payment).toMatchObject({ maskedNumber: '************1111', issuer: 'VISA' });
    expect(JSON.stringify(paid.cart)).not.toContain('fake-valid-nonce');
    const first = await s.app.commit(owner, view.cart.id);
    const again = await s.app.commit(owner, view.cart.id);
    expect(first.orderToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(again.orderToken).toBe(first.orderToken);
    expect(again.order.id).toBe(first.order.id);
    expect(s.connector.calls.createOrder).toBe(1);
    const confirmed = (await s.events()).filter((e) => e.topic === 'order-confirmed');
    expect(confirmed).toHaveLength(1);
    const message = OrderConfirmed.decode(confirmed[0]!.value!);
    expect(message).toMatchObject({
      orderId: first.order.id,
      orderTokenSha256: sha256Hasher.sha256(first.orderToken),
      // The retired clear fields stay empty.
      customerEmail: '',
      thirdPartyAccountId: '',
      fanId: '',
      sandbox: false,
      deliveryOption: { id: 'GB-ROYALMAIL', serviceLevel: 'MAIL' },
    });
    // The buyer's contact is sealed for the services given the contact keys: in clear nowhere.
    expect(Buffer.from(confirmed[0]!.value!).includes('ada@example.test')).toBe(false);
    expect(Buffer.from(confirmed[0]!.value!).includes('fan-1')).toBe(false);
    expect(
      openOrderContact(message.sealedContact, first.order.id, DEVELOPMENT_CONTACT_KEYS),
    ).toEqual({ customerEmail: 'ada@example.test', thirdPartyAccountId: 'fan-1', fanId: '' });
    expect(message.tickets).toHaveLength(2);
    expect(JSON.stringify(await s.events())).not.toContain(first.orderToken);

    const { order, partnerCancelQueued } = await s.app.cancelOrder(
      first.order.id,
      'requested',
      'test',
    );
    expect(order.status).toBe('CANCELLED');
    expect(partnerCancelQueued).toBe(true);
    const cancelled = (await s.events()).find((e) => e.topic === 'order-cancelled')!;
    expect(OrderCancelled.decode(cancelled.value!)).toMatchObject({
      orderId: first.order.id,
      inventoryOrderId: order.inventoryOrderId,
    });
    expect((await s.app.listOrders(owner)).map((o) => o.id)).toEqual([first.order.id]);
  });

  it('records a print the partner took even when the order changed meanwhile', async () => {
    const view = await s.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] });
    await s.app.addPayment(owner, view.cart.id, billing(view.priced.totals.unpaid));
    const { order } = await s.app.commit(owner, view.cart.id);
    // The order is cancelled while the partner prints it: the write of the print meets a newer
    // version and is made again on it.
    const partnerPrint = s.connector.printOrder.bind(s.connector);
    vi.spyOn(s.connector, 'printOrder').mockImplementationOnce(async (input) => {
      await partnerPrint(input);
      await s.app.cancelOrder(order.id, 'requested', 'meanwhile');
    });
    const printed = await s.app.printOrder(order.id, 'PRINT');
    expect(printed).toMatchObject({ status: 'CANCELLED', printed: 'PRINT' });
    expect(s.connector.printed.has(order.inventoryOrderId)).toBe(true);
    const topics = (await s.events()).map((e) => e.topic);
    expect(topics.filter((t) => t === 'order-printed')).toHaveLength(1);
    expect(topics).toContain('order-cancelled');
  });

  it('resumes a reserve its process left pending, once stale, from another process', async () => {
    s.connector.gate = new Promise(() => undefined); // the first process never hears back
    const pending = await s.app.reserve({
      owner,
      eventId: EVENT_ID,
      requests: [adult(1)],
      forceAsync: true,
    });
    const other = await setup({ sharing: s });
    await other.app.sweep();
    expect(other.connector.calls.createBooking).toBe(0); // not stale yet

    other.clock.t = new Date(other.clock.t.getTime() + 30_001);
    await other.app.sweep();
    await other.app.drain();
    expect(other.connector.calls.createBooking).toBe(1);
    expect((await other.app.get(owner, pending.cart.id)).cart.status).toBe('HELD');
  });

  it('retries a release the partner could not take until it is done', async () => {
    const view = await s.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] });
    s.connector.down = true;
    await s.app.release(owner, view.cart.id);
    expect((await s.app.get(owner, view.cart.id)).cart.releaseOwed).toBe(true);
    expect(s.connector.held()).toBe(1);
    s.connector.down = false;
    s.clock.t = new Date(s.clock.t.getTime() + 1_000);
    await s.app.sweep();
    expect(s.connector.held()).toBe(0);
    expect((await s.app.get(owner, view.cart.id)).cart.releaseOwed).toBe(false);
  });

  it('deletes carts ended longer ago than the retention that owe nothing, keeping their orders', async () => {
    const hour = 3_600_000;
    const later = (ms: number) => (s.clock.t = new Date(s.clock.t.getTime() + ms));
    const reserve = async () =>
      (await s.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] })).cart.id;
    const committed = await reserve();
    await s.app.addPayment(
      owner,
      committed,
      billing((await s.app.get(owner, committed)).priced.totals.unpaid),
    );
    const { order } = await s.app.commit(owner, committed);
    const released = await reserve();
    await s.app.release(owner, released);
    const owing = await reserve();
    s.connector.down = true;
    await s.app.release(owner, owing);
    s.connector.down = false;
    const live = await reserve();
    later(hour / 2);
    const recent = await reserve();
    await s.app.release(owner, recent);
    later(hour / 2 + 1);

    // Without a retention nothing goes.
    expect(await s.app.purgeEnded()).toBe(0);
    const kept = await setup({ sharing: s, settings: { endedRetentionMs: hour } });
    expect(await kept.app.purgeEnded()).toBe(2);
    for (const gone of [committed, released])
      await expect(kept.app.get(owner, gone)).rejects.toMatchObject({ kind: 'not_found' });
    for (const id of [owing, live, recent]) expect(await s.storage.carts.get(id)).toBeDefined();
    expect((await kept.app.listOrders(owner)).map((o) => o.id)).toEqual([order.id]);
    expect(await kept.app.purgeEnded()).toBe(0);

    // Once its release is through, the owing cart goes too (it ended over an hour ago).
    await kept.app.sweep();
    expect((await kept.app.get(owner, owing)).cart.releaseOwed).toBe(false);
    expect(await kept.app.purgeEnded()).toBe(1);
    expect(await s.storage.carts.get(owing)).toBeUndefined();
    expect(await s.storage.carts.get(live)).toBeDefined();
  });

  it('refuses transactions in the maintenance window of the event, not reads or releases', async () => {
    const view = await s.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] });
    const night = await setup({ settings: { maintenance: parseMaintenanceWindow('02:00-04:00') } });
    night.clock.t = new Date('2030-06-02T01:30:00Z'); // 02:30 in London (BST)
    await expect(
      night.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] }),
    ).rejects.toMatchObject({
      kind: 'unavailable',
      details: { reason: '20001' },
    });
    expect(view.cart.status).toBe('HELD');
  });

  it('never oversells under concurrent reserves, and frees every seat when all are released', async () => {
    // One app stands for 40 fans here: no held-ticket quota.
    s = await setup({ settings: { heldTicketsPerEvent: 0 } });
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, () =>
        s.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] }),
      ),
    );
    const held = results.filter((r) => r.status === 'fulfilled');
    expect(held).toHaveLength(10);
    expect(s.connector.held()).toBe(10);
    await Promise.all(
      held.map((r) =>
        s.app.release(owner, (r as PromiseFulfilledResult<{ cart: { id: string } }>).value.cart.id),
      ),
    );
    expect(s.connector.held()).toBe(0);
  });

  it('holds at most the held-ticket quota per app and event; a release frees it at once', async () => {
    const q = await setup({ capacity: 100, settings: { heldTicketsPerEvent: 5 } });
    const first = await q.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(3)] });
    const over = await q.app
      .reserve({ owner, eventId: EVENT_ID, requests: [adult(3)] })
      .catch((error: unknown) => error);
    expect(over).toMatchObject({
      kind: 'failed_precondition',
      code: '20060',
      details: { limit: 5, held: 3, requested: 3 },
    });
    expect((over as Error).message).toContain('at most 5 tickets');
    // The refused cart asked the partner for nothing and stopped counting.
    expect(q.connector.held()).toBe(3);
    // Another app, and this app's sandbox carts, have their own room.
    await q.app.reserve({
      owner: { ...owner, appId: 'app-2' },
      eventId: EVENT_ID,
      requests: [adult(5)],
    });
    await q.app.reserve({
      owner: { ...owner, sandbox: true },
      eventId: EVENT_ID,
      requests: [adult(4)],
    });
    // An owner may carry the app's own quota (the edge reads it with the key).
    const app3 = { ...owner, appId: 'app-3' };
    await expect(
      q.app.reserve({ owner: app3, eventId: EVENT_ID, requests: [adult(8)] }),
    ).rejects.toMatchObject({ code: '20060' });
    await q.app.reserve({
      owner: { ...app3, heldTicketsPerEvent: 8 },
      eventId: EVENT_ID,
      requests: [adult(8)],
    });
    await q.app.release(owner, first.cart.id);
    await q.app.drain();
    const again = await q.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(5)] });
    expect(again.cart.status).toBe('HELD');
  });

  it('concurrent reserves of one app never hold more than its quota together', async () => {
    const q = await setup({ capacity: 100, settings: { heldTicketsPerEvent: 4 } });
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, () =>
        q.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] }),
      ),
    );
    const held = results.filter((r) => r.status === 'fulfilled');
    expect(held.length).toBeLessThanOrEqual(4);
    expect(q.connector.held()).toBe(held.length);
    for (const r of results)
      if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: '20060' });
    // The refused carts stopped counting: the rest of the quota can be held now, and no more.
    const rest = 4 - held.length;
    if (rest > 0) await q.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(rest)] });
    await expect(
      q.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] }),
    ).rejects.toMatchObject({ code: '20060' });
    expect(q.connector.held()).toBe(4);
  });

  it('sandbox carts use the sandbox inventory only, never oversell it, and publish no booking', async () => {
    const sandboxOwner = { ...owner, sandbox: true };
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () =>
        s.app.reserve({ owner: sandboxOwner, eventId: EVENT_ID, requests: [adult(1)] }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    expect(s.connector.calls.createBooking).toBe(0);
    const carts = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const one = carts[0]!;
    const paid = await s.app.addPayment(
      sandboxOwner,
      one.cart.id,
      billing(one.priced.totals.unpaid),
    );
    const committed = await s.app.commit(sandboxOwner, paid.cart.id);
    expect(committed.order).toMatchObject({ sandbox: true, inventoryOrderId: '' });
    const topics = (await s.events()).map((e) => e.topic);
    expect(topics).not.toContain('booking-held');
    expect(
      OrderConfirmed.decode((await s.events()).find((e) => e.topic === 'order-confirmed')!.value!)
        .sandbox,
    ).toBe(true);
    for (const cart of carts.slice(1)) await s.app.release(sandboxOwner, cart.cart.id);
    const again = await Promise.allSettled(
      Array.from({ length: 6 }, () =>
        s.app.reserve({ owner: sandboxOwner, eventId: EVENT_ID, requests: [adult(1)] }),
      ),
    );
    expect(again.filter((r) => r.status === 'fulfilled')).toHaveLength(4);
  });

  it('requires the third-party account id for secure-entry events and acknowledges secure entry', async () => {
    const secure = await setup({
      event: { ticketing: { ...partnerEvent().ticketing!, secureEntryEnabled: true } },
    });
    const view = await secure.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] });
    expect(view.agreements.map((a) => a.type)).toEqual(['boolean', 'acknowledgement']);
    await expect(
      secure.app.addPayment(owner, view.cart.id, {
        ...billing(view.priced.totals.unpaid),
        thirdPartyAccountId: '',
      }),
    ).rejects.toMatchObject({ details: { reason: '10002', field: 'third_party_account_id' } });
    expect((await secure.app.shippingOptions(owner, view.cart.id, 'US')).map((o) => o.id)).toEqual([
      'ETICKET',
    ]);
  });

  it('attributes a cart to the latest tracking hit of the app for the event', async () => {
    await s.app.recordTracking({
      appId: 'app-1',
      eventId: EVENT_ID,
      sharedId: 'aff-42',
      subIds: ['a', '', ''],
      sandbox: false,
    });
    const view = await s.app.reserve({ owner, eventId: EVENT_ID, requests: [adult(1)] });
    expect(view.cart.sharedId).toBe('aff-42');
    const other = await s.app.reserve({
      owner: { ...owner, appId: 'app-2' },
      eventId: EVENT_ID,
      requests: [adult(1)],
    });
    expect(other.cart.sharedId).toBeUndefined();
  });
});
