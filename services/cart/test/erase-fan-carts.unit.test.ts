import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createServiceStores } from '@marquee/platform/store';
import { BookingReleased, ReleaseReason } from '@marquee/proto/cart/v1';
import { bookingReleasedTopic } from '@marquee/proto/topics';
import { createSandboxProcessor } from '../src/adapters/sandbox-processor.js';
import { orderTokenBox, sha256Hasher } from '../src/adapters/secret-box.js';
import { createCartStorage } from '../src/adapters/stores.js';
import { CartApp, type BillingInput, type CartOwner } from '../src/app/index.js';
import { withoutPersonalData } from '../src/domain/cart.js';
import { DEFAULT_FEES } from '../src/domain/pricing.js';
import { EventProjectionStore } from '../src/adapters/event-projection-store.js';
import {
  cartOrderLookup,
  composeTopPicks,
  createTopPicksStorage,
  projectionEventSource,
} from '../src/top-picks/index.js';
import { area, availability, EVENT_ID, partnerEvent } from './support/events.js';
import { FakeConnector } from './support/fake-connector.js';
import { cartAppDefaults, silent } from './support/cart-app.js';

/**
 * `CartApp.eraseFan` (`fan-deleted`): the fan's live carts released and every cart of theirs
 * blanked (`EraseFanCarts`), their listings withdrawn and their tickets' owner blanked
 * (`EraseFanResale`), their orders' contact erased; a repeat writes nothing.
 */
const fan = (fanId: string): CartOwner & { channel: 'commerce' } => ({
  appId: 'fan-app',
  sandbox: false,
  channel: 'commerce',
  fanId,
});
const buyer = { appId: 'buyer-app', sandbox: false, channel: 'partner-cart' as const };

const billing = (amountMinor: number): BillingInput => ({
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.test',
  type: 'CC',
  reference: 'my ref',
  countryCode: 'GB',
  amountMinor,
  currency: 'GBP',
  cardNonce: 'fake-valid-nonce',
  cin: '123',
  expireMonth: 12,
  expireYear: 2032,
  thirdPartyAccountId: 'acct-ada',
});

async function setup() {
  const now = () => new Date('2030-06-01T12:00:00Z');
  const stores = createServiceStores(undefined);
  const storage = createCartStorage(stores, { sandboxAreaCapacity: 100 });
  const events = new EventProjectionStore(storage.events, now);
  await events.applyEvent(partnerEvent());
  await events.applyAvailability(availability(1, [area({ available: 8, unavailable: 0 })]));
  const connector = new FakeConnector(10, now);
  const topPicks = composeTopPicks({
    admittedSeats: { admitted: async () => [] },
    storage: createTopPicksStorage(stores),
    events: projectionEventSource(events, { fees: DEFAULT_FEES, now }),
    orders: cartOrderLookup(storage.orders),
    logger: silent as never,
    clock: { now },
  });
  const processor = createSandboxProcessor({ timeoutMs: 5 });
  const secrets = orderTokenBox([randomBytes(32)]);
  const cart = new CartApp({
    ...storage,
    events,
    resale: topPicks.app,
    connector,
    processor,
    sandboxProcessor: processor,
    ...cartAppDefaults(now, { secrets }),
  });
  const released = async () =>
    (await Promise.all(stores.outboxSources.map((s) => s.pendingOutbox(1_000))))
      .flat()
      .flatMap((p) => p.events)
      .filter((e) => e.topic === bookingReleasedTopic.name)
      .map((e) => BookingReleased.decode(e.value!));
  return { cart, picks: topPicks.app, storage, secrets, connector, released };
}

type Setup = Awaited<ReturnType<typeof setup>>;
const primary = [{ tickets: [{ priceTypeId: '000001', quantity: 2 }] }];

async function hold(s: Setup, owner: CartOwner & { channel: 'commerce' | 'partner-cart' }) {
  return s.cart.reserve({ owner, eventId: EVENT_ID, requests: primary });
}

async function buy(s: Setup, owner: CartOwner & { channel: 'commerce' | 'partner-cart' }) {
  const held = await hold(s, owner);
  await s.cart.addPayment(owner, held.cart.id, billing(held.priced.totals.unpaid));
  return s.cart.commit(owner, held.cart.id);
}

const PERSONAL = ['fanId', 'buyerAccountId'] as const;

function expectNothingPersonal(cart: object | undefined) {
  for (const field of PERSONAL) expect(cart).not.toHaveProperty(field);
  const billingOf = (cart as { billing?: Record<string, string> }).billing;
  if (billingOf)
    expect(billingOf).toMatchObject({
      firstName: '',
      lastName: '',
      email: '',
      thirdPartyAccountId: '',
      reference: '',
    });
}

describe('EraseFanCarts', () => {
  it("releases a fan's live cart and blanks it and their ended cart; another fan's stays", async () => {
    const s = await setup();
    const committed = await buy(s, fan('fan-1'));
    const live = await hold(s, fan('fan-1'));
    const paid = await hold(s, fan('fan-1'));
    await s.cart.addPayment(fan('fan-1'), paid.cart.id, billing(paid.priced.totals.unpaid));
    const other = await hold(s, fan('fan-2'));

    expect(await s.cart.eraseFan('fan-1')).toEqual({ carts: 3, released: 2, orders: 1 });

    const heldAfter = await s.storage.carts.get(live.cart.id);
    expect(heldAfter).toMatchObject({ status: 'RELEASED', releaseReason: 'fan-deleted' });
    expect(heldAfter!.contactErasedAt).toBeInstanceOf(Date);
    expectNothingPersonal(heldAfter);
    // The paid cart: released, its authorisation voided.
    const paidAfter = await s.storage.carts.get(paid.cart.id);
    expect(paidAfter).toMatchObject({ status: 'RELEASED', voidOwed: false });
    expect(paidAfter!.payment?.status).toBe('VOIDED');
    expectNothingPersonal(paidAfter);
    const ended = await s.storage.carts.get(committed.view.cart.id);
    expect(ended?.status).toBe('COMMITTED');
    expectNothingPersonal(ended);
    expect(await s.storage.orders.get(committed.order.id)).toMatchObject({
      customerEmail: '',
      thirdPartyAccountId: '',
    });
    // booking-released says why; nothing is owed to the partner any more.
    const reasons = (await s.released()).map((r) => r.reason);
    expect(reasons).toContain(ReleaseReason.RELEASE_REASON_FAN_DELETED);
    expect(heldAfter).toMatchObject({ releaseOwed: false });
    // Another fan's cart is untouched.
    expect(await s.storage.carts.get(other.cart.id)).toMatchObject({
      status: 'HELD',
      fanId: 'fan-2',
    });
  });

  it('writes nothing on a second delivery, nor for a fan without carts or without an id', async () => {
    const s = await setup();
    const held = await hold(s, fan('fan-1'));
    await s.cart.eraseFan('fan-1');
    const once = await s.storage.carts.get(held.cart.id);
    expect(await s.cart.eraseFan('fan-1')).toEqual({ carts: 0, released: 0, orders: 0 });
    expect(await s.storage.carts.get(held.cart.id)).toEqual(once);
    expect(await s.cart.eraseFan('fan-unknown')).toEqual({ carts: 0, released: 0, orders: 0 });
    expect(await s.cart.eraseFan('')).toEqual({ carts: 0, released: 0, orders: 0 });
  });

  it('blanks a cart whose commit has not captured yet: the order comes out without contact', async () => {
    const s = await setup();
    const held = await hold(s, fan('fan-1'));
    await s.cart.addPayment(fan('fan-1'), held.cart.id, billing(held.priced.totals.unpaid));
    // A commit under way elsewhere fixed its order on the cart and has not captured yet.
    await s.storage.carts.modify(held.cart.id, (current) => ({
      ...current,
      order: {
        orderId: 'order-under-way',
        orderNumber: 'MQ-TEST-0001',
        tokenSha256: sha256Hasher.sha256('token'),
        tokenSealed: s.secrets.seal('token'),
      },
    }));

    expect(await s.cart.eraseFan('fan-1')).toEqual({ carts: 1, released: 0, orders: 0 });
    // Not released: its order is being confirmed. The commit goes on (it holds the cart already).
    const { order } = await s.cart.commit(
      { appId: 'fan-app', sandbox: false, channel: 'commerce' },
      held.cart.id,
    );
    expect(order).toMatchObject({
      id: 'order-under-way',
      customerEmail: '',
      thirdPartyAccountId: '',
    });
    expect(order).not.toHaveProperty('fanId');
  });

  it('leaves a cart whose commit captured and has not written its order, and rejects for a redelivery', async () => {
    const s = await setup();
    const committed = await buy(s, fan('fan-1'));
    // As the cart was between its capture and its order: PAID, captured, its order not written.
    await s.storage.carts.modify(committed.view.cart.id, (current) => ({
      ...current,
      status: 'PAID',
      order: { ...current.order!, orderId: 'not-written-yet' },
    }));

    await expect(s.cart.eraseFan('fan-1')).rejects.toMatchObject({ kind: 'unavailable' });
    expect(await s.storage.carts.get(committed.view.cart.id)).toMatchObject({ fanId: 'fan-1' });
    // Everything else was erased meanwhile.
    expect(await s.storage.orders.get(committed.order.id)).toMatchObject({ customerEmail: '' });

    // Once the order is there (here: the cart names the order that exists), a redelivery ends it.
    await s.storage.carts.modify(committed.view.cart.id, (current) => ({
      ...current,
      order: { ...current.order!, orderId: committed.order.id },
    }));
    expect(await s.cart.eraseFan('fan-1')).toMatchObject({ carts: 1 });
    expectNothingPersonal(await s.storage.carts.get(committed.view.cart.id));
  });

  it('withoutPersonalData answers undefined for a cart with nothing personal left', () => {
    const at = new Date('2030-06-01T12:00:00Z');
    const cart = { id: 'c', fanId: 'f', billing: { ...billing(1), firstName: 'A' } } as never;
    const erased = withoutPersonalData(cart, at)!;
    expect(withoutPersonalData(erased, at)).toBeUndefined();
  });
});

describe('EraseFanResale', () => {
  it("withdraws the fan's open listings, held or not, blanks their notes and the fan's tickets", async () => {
    const s = await setup();
    const first = await buy(s, fan('fan-1'));
    const second = await buy(s, fan('fan-1'));
    const listed = await s.picks.createListing({
      orderId: first.order.id,
      ticketIds: first.order.tickets.map((t) => t.ticketId),
      price: { amountMinor: 4_500, currency: 'GBP' },
      sellerNotes: 'Call Ada on 0123',
    });
    const heldListing = await s.picks.createListing({
      orderId: second.order.id,
      ticketIds: second.order.tickets.map((t) => t.ticketId),
      price: { amountMinor: 4_500, currency: 'GBP' },
      sellerNotes: 'ada@example.test',
    });
    // Another buyer's cart holds the second listing.
    const buying = await s.cart.reserve({
      owner: buyer,
      eventId: EVENT_ID,
      requests: [{ tickets: [{ priceTypeId: heldListing.id, quantity: 2 }] }],
    });

    await s.cart.eraseFan('fan-1');

    for (const id of [listed.id, heldListing.id])
      expect(await s.picks.getListing(id)).toMatchObject({ state: 'WITHDRAWN', sellerNotes: '' });
    for (const ticket of [...first.order.tickets, ...second.order.tickets]) {
      const owner = await s.picks.ownerOf(EVENT_ID, ticket.ticketId);
      expect(owner).toMatchObject({ ownerFanId: '', thirdPartyAccountId: '', listingId: '' });
    }
    // The buyer's commit finds the listing gone and sells nothing.
    await s.cart.addPayment(buyer, buying.cart.id, billing(buying.priced.totals.unpaid));
    await expect(s.cart.commit(buyer, buying.cart.id)).rejects.toMatchObject({
      kind: 'failed_precondition',
      message: expect.stringContaining('no longer held'),
    });
    // A repeat changes nothing more.
    expect(await s.picks.eraseFan('fan-1', [first.order.id, second.order.id])).toEqual({
      listings: 0,
      tickets: 0,
    });
  });
});
