import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { createServiceStores } from '@marquee/platform/store';
import { createSandboxProcessor } from '../src/adapters/sandbox-processor.js';
import { orderTokenBox } from '../src/adapters/secret-box.js';
import { createCartStorage } from '../src/adapters/stores.js';
import { createCommerceStorage } from '../src/commerce/adapters/stores.js';
import { CartApp, type BillingInput } from '../src/app/index.js';
import { CommerceApp, type ProductInput } from '../src/commerce/app/commerce-app.js';
import { commerceDeliveries } from '../src/commerce/domain/deliveries.js';
import { offersMessage } from '../src/commerce/ports/grpc/commerce-messages.js';
import { offerId, parseOfferId, passwordId } from '../src/domain/offer-ids.js';
import { buildOffers, DEFAULT_MAX_TICKETS } from '../src/commerce/domain/offers.js';
import {
  PASSWORD_ATTEMPTS_EXCEEDED,
  PasswordThrottle,
} from '../src/commerce/adapters/password-throttle.js';
import { DEFAULT_FEES, type FeeSchedule } from '../src/domain/pricing.js';
import { shippingOptions } from '../src/domain/shipping.js';
import { EventProjectionStore } from '../src/adapters/event-projection-store.js';
import type { SellableEvent } from '../src/domain/sellable-event.js';
import { area, availability, EVENT_ID, partnerEvent } from './support/events.js';
import { FakeConnector } from './support/fake-connector.js';
import { cartAppDefaults } from './support/cart-app.js';

const NOW = new Date('2030-06-01T12:00:00Z');
const ADULT = '000001';
const FAN_CLUB = '000002';
const PASSWORD = 'letmein';

/** The event as cart's projection reads it (the shared fixture: PL1/PL2, Adult and a protected type). */
async function projection(
  areas = [
    area({ available: 5 }),
    area({
      areaId: 'A2',
      levelId: 'L2',
      sectionId: '',
      priceLevelId: 'PL2',
      generalAdmission: true,
      available: 40,
    }),
  ],
) {
  const stores = createServiceStores(undefined);
  const storage = createCartStorage(stores, { sandboxAreaCapacity: 100 });
  const events = new EventProjectionStore(storage.events, () => NOW);
  await events.applyEvent(partnerEvent());
  await events.applyAvailability(availability(1, areas));
  return {
    stores,
    storage: { ...storage, ...createCommerceStorage(stores) },
    events,
    event: (await events.get(EVENT_ID))!,
  };
}

describe('commerce offer ids', () => {
  it('are stable, decodable and canonical', () => {
    const id = offerId('000001', 'PL1');
    expect(offerId('000001', 'PL1')).toBe(id);
    expect(parseOfferId(id)).toEqual({ priceTypeId: '000001', priceLevelId: 'PL1' });
    expect(offerId('0001', 'PL1')).not.toBe(offerId('000001', 'PL1'));
    for (const bad of ['', 'not base64!', 'QUJD', `${id}=`, 'x'.repeat(300)])
      expect(parseOfferId(bad), bad).toBeUndefined();
    expect(passwordId(FAN_CLUB)).not.toContain(FAN_CLUB);
  });
});

describe('buildOffers', () => {
  let event: SellableEvent;
  beforeEach(async () => {
    event = (await projection()).event;
  });

  it('builds one offer per price type × price level with face value, fees and taxes', () => {
    const built = buildOffers({ event, fees: DEFAULT_FEES, unlocked: new Set(), now: NOW });
    expect(built.offers.map((o) => [o.priceTypeId, o.priceLevelId, o.rank])).toEqual([
      [ADULT, 'PL1', 1],
      [ADULT, 'PL2', 2],
    ]);
    const [stalls, circle] = built.offers;
    // 10 % service fee (at least 1.50), 20 % tax on the fee.
    expect(stalls).toMatchObject({
      id: offerId(ADULT, 'PL1'),
      name: 'Adult',
      offerType: 'STANDARD',
      faceValueMinor: 5000,
      fees: [{ amountMinor: 500, label: 'Service fee', type: 'service' }],
      taxes: [{ amountMinor: 100, label: 'Tax on fees', type: 'tax' }],
      totalMinor: 5600,
      start: new Date('2030-01-01T00:00:00Z'),
      end: new Date('2031-01-01T00:00:00Z'),
      areaIds: ['A1'],
      limit: { min: 1, max: 5, sellableQty: 5, multiples: 1 },
    });
    expect(circle).toMatchObject({
      faceValueMinor: 3000,
      fees: [{ amountMinor: 300 }],
      taxes: [{ amountMinor: 60 }],
      totalMinor: 3360,
      // The event's ticket limit (8) caps an area with 40 left.
      limit: { max: 8, sellableQty: 40 },
    });
    expect(built.limitMax).toBe(8);
  });

  it('applies the minimum service fee to cheap tickets, rounding half up', () => {
    const fees: FeeSchedule = { ...DEFAULT_FEES, serviceFeeBps: 1_250, serviceFeeMinMinor: 400 };
    const cheap = {
      ...event,
      prices: [{ priceLevelId: 'PL1', priceTypeId: ADULT, amountMinor: 1_000 }],
    };
    expect(
      buildOffers({ event: cheap, fees, unlocked: new Set(), now: NOW }).offers[0],
    ).toMatchObject({
      fees: [{ amountMinor: 400 }],
      taxes: [{ amountMinor: 80 }],
      totalMinor: 1_480,
    });
    const odd = {
      ...event,
      prices: [{ priceLevelId: 'PL1', priceTypeId: ADULT, amountMinor: 4_004 }],
    };
    // 12.5 % of 40.04 = 5.005 → 5.01; tax 20 % of 5.01 = 1.002 → 1.00.
    expect(
      buildOffers({ event: odd, fees, unlocked: new Set(), now: NOW }).offers[0],
    ).toMatchObject({
      fees: [{ amountMinor: 501 }],
      taxes: [{ amountMinor: 100 }],
      totalMinor: 4_605,
    });
  });

  it('hides protected offers until unlocked, but always lists their password entry', () => {
    const locked = buildOffers({ event, fees: DEFAULT_FEES, unlocked: new Set(), now: NOW });
    expect(locked.offers.some((o) => o.priceTypeId === FAN_CLUB)).toBe(false);
    expect(locked.passwords).toEqual([
      expect.objectContaining({ id: passwordId(FAN_CLUB), name: 'Fan club', unlocked: false }),
    ]);
    const open = buildOffers({
      event,
      fees: DEFAULT_FEES,
      unlocked: new Set([FAN_CLUB]),
      now: NOW,
    });
    const special = open.offers.find((o) => o.priceTypeId === FAN_CLUB)!;
    expect(special).toMatchObject({
      id: offerId(FAN_CLUB, 'PL1'),
      offerType: 'SPECIAL',
      protected: true,
      passwordIds: [passwordId(FAN_CLUB)],
    });
    expect(open.passwords[0]).toMatchObject({ unlocked: true, offerIds: [special.id] });
    expect(open.priceZones.find((z) => z.id === 'PL1')!.offerIds).toContain(special.id);
  });

  it('gives price zones per level and areas typed SECTION / LEVEL / AREA', () => {
    const built = buildOffers({ event, fees: DEFAULT_FEES, unlocked: new Set(), now: NOW });
    expect(built.priceZones).toEqual([
      { id: 'PL1', name: 'Stalls', offerIds: [offerId(ADULT, 'PL1')], areaIds: ['A1'] },
      { id: 'PL2', name: 'Circle', offerIds: [offerId(ADULT, 'PL2')], areaIds: ['A2'] },
    ]);
    expect(built.areas.map((a) => [a.id, a.areaType, a.priceZoneId, a.rank])).toEqual([
      ['A1', 'SECTION', 'PL1', 1],
      ['A2', 'LEVEL', 'PL2', 2],
    ]);
  });

  it('uses the default limit when the event gives none, and 0 max for a sold-out level', async () => {
    const soldOut = (await projection([area({ available: 0, unavailable: 10 })])).event;
    const built = buildOffers({
      event: { ...soldOut, ticketLimit: 0 },
      fees: DEFAULT_FEES,
      unlocked: new Set(),
      now: NOW,
    });
    expect(built.limitMax).toBe(DEFAULT_MAX_TICKETS);
    expect(built.offers[0]!.limit).toMatchObject({ max: 0, sellableQty: 0 });
  });

  it('maps to the CommerceService message without ever naming a locked password offer', () => {
    const built = buildOffers({ event, fees: DEFAULT_FEES, unlocked: new Set(), now: NOW });
    const message = offersMessage(built, event);
    expect(message.metadata).toMatchObject({
      sourceName: 'partner',
      sourceId: 'pPartner0001',
      mappedId: 'E1',
    });
    expect(message.passwords[0]).toMatchObject({ offerIds: [], unlocked: false, exclusive: true });
    expect(message.offers[0]!.prices[0]).toEqual({
      priceZoneId: 'PL1',
      value: { amountMinor: 5000, currency: 'GBP' },
      total: { amountMinor: 5600, currency: 'GBP' },
      fees: [
        { value: { amountMinor: 500, currency: 'GBP' }, label: 'Service fee', type: 'service' },
      ],
      taxes: [{ value: { amountMinor: 100, currency: 'GBP' }, label: 'Tax on fees', type: 'tax' }],
    });
    expect(JSON.stringify(message)).not.toContain(PASSWORD);
  });
});

describe('commerce deliveries', () => {
  it('restricts post to the region and asks identification at will call', () => {
    const deliveries = commerceDeliveries({
      options: shippingOptions({ region: '', eventCountry: 'US', secureEntry: false }),
      eventCountry: 'US',
      selectedId: 'US-USPS-MAIL',
    });
    expect(deliveries.map((d) => [d.id, d.deliveryType, d.selected])).toEqual([
      ['ETICKET', 'DIGITAL', false],
      ['US-USPS-MAIL', 'MAIL', true],
      ['US-UPS-2DAY', '2DAYPM', false],
      ['US-WILLCALL', 'WILLCALL', false],
    ]);
    expect(deliveries[0]!.option.acceptedCountries).toEqual([]);
    expect(deliveries[1]!.option).toMatchObject({
      requiresAddress: true,
      acceptedCountries: ['US', 'CA', 'AU', 'NZ'],
    });
    expect(deliveries[3]!.option.requiresIdentification).toBe(true);
  });
});

describe('CommerceApp shopping (memory stores, fake partner)', () => {
  const fan = { appId: 'app-1', fanId: 'fan-1' };
  const anonymous = { appId: 'app-1', fanId: '' };
  let commerce: CommerceApp;
  let throttleNow: Date;
  let carts: CartApp;
  let connector: FakeConnector;
  let verified: string[];

  const product = (overrides: Partial<ProductInput> = {}): ProductInput => ({
    product: EVENT_ID,
    eventId: '',
    qty: 0,
    offers: [{ offer: offerId(ADULT, 'PL1'), qty: 2, password: '' }],
    areaIds: [],
    minPrice: '',
    maxPrice: '',
    minPriceMinor: 0,
    maxPriceMinor: 0,
    ...overrides,
  });
  const billing = (amountMinor: number): BillingInput => ({
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: 'ada@example.test',
    type: 'CC',
    reference: '',
    countryCode: 'GB',
    amountMinor,
    currency: 'GBP',
    cardNonce: 'fake-valid-nonce',
    cin: '123',
    expireMonth: 12,
    expireYear: 2032,
    thirdPartyAccountId: '',
  });

  beforeEach(async () => {
    const { storage, events } = await projection();
    connector = new FakeConnector(10, () => NOW);
    throttleNow = NOW;
    const processor = createSandboxProcessor({ timeoutMs: 5 });
    const secrets = orderTokenBox([randomBytes(32)]);
    carts = new CartApp({
      ...storage,
      events,
      connector,
      processor,
      sandboxProcessor: processor,
      ...cartAppDefaults(() => NOW, { secrets }),
    });
    verified = [];
    commerce = new CommerceApp({
      carts,
      events,
      secrets,
      fees: carts.fees,
      clock: { now: () => NOW },
      accessCodes: {
        async priceTypesOpenedBy(eventId, code) {
          verified.push(code);
          return eventId === EVENT_ID && code === PASSWORD ? [FAN_CLUB] : [];
        },
      },
      throttle: new PasswordThrottle(
        storage.passwordFailures,
        { windowMs: 600_000, perApp: 6, perFan: 3 },
        () => throttleNow,
      ),
    });
  });

  it('reveals protected offers only with the right password, and asks the connector only then', async () => {
    expect(
      (await commerce.offers({ shopper: anonymous, eventId: EVENT_ID, passwords: [] })).offers
        .offers,
    ).toHaveLength(2);
    expect(verified).toEqual([]);
    const wrong = await commerce.offers({
      shopper: anonymous,
      eventId: EVENT_ID,
      passwords: ['guess', 'GUESS'],
    });
    expect(wrong.offers.offers.some((o) => o.protected)).toBe(false);
    const right = await commerce.offers({
      shopper: anonymous,
      eventId: EVENT_ID,
      passwords: ['guess', PASSWORD],
    });
    expect(right.offers.offers.filter((o) => o.protected).map((o) => o.priceTypeId)).toEqual([
      FAN_CLUB,
    ]);
    await expect(
      commerce.offers({
        shopper: anonymous,
        eventId: EVENT_ID,
        passwords: ['a', 'b', 'c', 'd', 'e', 'f'],
      }),
    ).rejects.toMatchObject({ kind: 'invalid_argument' });
    await expect(
      commerce.offers({ shopper: anonymous, eventId: 'ZZZZZZZZZZZZZZZ', passwords: [] }),
    ).rejects.toMatchObject({
      kind: 'not_found',
    });
  });

  it('throttles wrong passwords per app and event: 429 for any password, right or wrong', async () => {
    const offers = (passwords: string[], shopper = anonymous, eventId = EVENT_ID) =>
      commerce.offers({ shopper, eventId, passwords });
    for (let i = 0; i < 3; i++) await offers([`guess-${i}a`, `guess-${i}b`]);
    const asked = verified.length;
    const refused = {
      kind: 'resource_exhausted',
      details: { reason: PASSWORD_ATTEMPTS_EXCEEDED, retryAfterMs: expect.any(Number) },
    };
    // Six wrong passwords: the next request is refused before any password is checked, the right
    // one as much as a wrong one, so a refusal tells nothing about the codes.
    await expect(offers([PASSWORD])).rejects.toMatchObject(refused);
    await expect(offers(['guess-x'])).rejects.toMatchObject(refused);
    expect(verified).toHaveLength(asked);
    // Browsing without a password, and another app, are not held back.
    expect((await offers([])).offers.offers).toHaveLength(2);
    const other = await offers([PASSWORD], { appId: 'app-2', fanId: '' });
    expect(other.offers.offers.some((o) => o.protected)).toBe(true);
    // A cart with a password is refused as well.
    await expect(
      commerce.create(fan, [
        product({ offers: [{ offer: offerId(FAN_CLUB, 'PL1'), qty: 1, password: PASSWORD }] }),
      ]),
    ).rejects.toMatchObject(refused);
    // The window ends: the right password opens the offer again.
    throttleNow = new Date(NOW.getTime() + 600_000);
    const open = await offers([PASSWORD]);
    expect(open.offers.offers.some((o) => o.protected)).toBe(true);
  });

  it('throttles a signed-in fan on their own before the app', async () => {
    const other = { appId: 'app-1', fanId: 'fan-2' };
    for (const guess of ['a', 'b', 'c'])
      await commerce.offers({ shopper: fan, eventId: EVENT_ID, passwords: [guess] });
    await expect(
      commerce.offers({ shopper: fan, eventId: EVENT_ID, passwords: [PASSWORD] }),
    ).rejects.toMatchObject({ details: { reason: PASSWORD_ATTEMPTS_EXCEEDED } });
    const theirs = await commerce.offers({
      shopper: other,
      eventId: EVENT_ID,
      passwords: [PASSWORD],
    });
    expect(theirs.offers.offers.some((o) => o.protected)).toBe(true);
  });

  it("holds a commerce cart within the app's own held-ticket quota", async () => {
    const quoted = { ...fan, heldTicketsPerEvent: 3 };
    const first = await commerce.create(quoted, [product()]);
    expect(first.view.cart.status).toBe('HELD');
    // Two more would be 4 of the app's 3 (cart's default, 20, would have let them through).
    await expect(commerce.create({ ...quoted, fanId: 'fan-2' }, [product()])).rejects.toMatchObject(
      { kind: 'failed_precondition', details: { reason: '20060', limit: 3 } },
    );
    await commerce.release(quoted, first.view.cart.id);
    expect((await commerce.create(quoted, [product()])).view.cart.status).toBe('HELD');
  });

  it("bounds a fan's held and bought tickets of an event by its ticket limit (8), across carts", async () => {
    const qty = (n: number) =>
      product({ offers: [{ offer: offerId(ADULT, 'PL1'), qty: n, password: '' }] });
    const bought = await commerce.create(fan, [qty(2)]);
    await commerce.selectDelivery(fan, bought.view.cart.id, 'ETICKET');
    await commerce.addPayment(fan, bought.view.cart.id, billing(bought.view.priced.totals.unpaid));
    await commerce.purchase(fan, bought.view.cart.id);
    const held = await commerce.create(fan, [qty(4)]);
    // 2 bought + 4 held + 3 asked = 9 of 8.
    await expect(commerce.create(fan, [qty(3)])).rejects.toMatchObject({
      kind: 'failed_precondition',
      details: { reason: '20061', limit: 8, held: 4, bought: 2, requested: 3 },
    });
    // Another fan of the app is not held back; a released cart stops counting at once.
    expect((await commerce.create({ ...fan, fanId: 'fan-2' }, [qty(3)])).view.cart.status).toBe(
      'HELD',
    );
    await commerce.release(fan, held.view.cart.id);
    expect((await commerce.create(fan, [qty(3)])).view.cart.status).toBe('HELD');
  });

  it('bounds what one third_party_account_id holds and buys on the partner cart, at payment', async () => {
    const owner = { appId: 'app-9', sandbox: false, channel: 'partner-cart' as const };
    const reserve = (quantity: number) =>
      carts.reserve({
        owner,
        eventId: EVENT_ID,
        requests: [{ tickets: [{ priceTypeId: ADULT, quantity, priceLevelId: 'PL1' }] }],
      });
    const pay = (view: Awaited<ReturnType<typeof reserve>>, account: string) =>
      carts.addPayment(owner, view.cart.id, {
        ...billing(view.priced.totals.unpaid),
        thirdPartyAccountId: account,
      });
    const first = await reserve(5);
    await pay(first, 'acct-1');
    await carts.commit(owner, first.cart.id);
    const second = await reserve(4);
    // 5 bought by acct-1 + 4 = 9 of 8: refused before any money is asked for.
    await expect(pay(second, 'acct-1')).rejects.toMatchObject({
      kind: 'failed_precondition',
      details: { reason: '20061', limit: 8, bought: 5, requested: 4 },
    });
    expect((await carts.get(owner, second.cart.id)).cart).toMatchObject({ status: 'HELD' });
    expect((await carts.get(owner, second.cart.id)).cart.buyerAccountId).toBeUndefined();
    // Another account pays for the same cart.
    expect((await pay(second, 'acct-2')).cart.status).toBe('PAID');
  });

  it('charges in the cart the totals its offers show (commerce offers → cart)', async () => {
    const shown = (await commerce.offers({ shopper: anonymous, eventId: EVENT_ID, passwords: [] }))
      .offers;
    const offer = shown.offers.find((o) => o.id === offerId(ADULT, 'PL1'))!;
    expect(offer.totalMinor).toBe(
      offer.faceValueMinor +
        offer.fees.reduce((s, f) => s + f.amountMinor, 0) +
        offer.taxes.reduce((s, t) => s + t.amountMinor, 0),
    );
    const created = await commerce.create(fan, [product()]);
    const priced = created.view.priced;
    // Per ticket exactly the offer's total; once per cart the processing fee and its tax.
    expect(priced.lines[0]!.totals.grand).toBe(offer.totalMinor * 2);
    expect(priced.totals.grand).toBe(
      offer.totalMinor * 2 + priced.processing!.priceMinor + priced.processing!.taxMinor,
    );
  });

  it('charges in a reserve the offers availability shows (availability offers → reserve)', async () => {
    const shown = await carts.availability({ eventId: EVENT_ID, sandbox: false });
    const offer = shown.offers.find((o) => o.priceTypeId === ADULT && o.priceLevelId === 'PL1')!;
    const held = await carts.reserve({
      owner: { appId: 'app-1', sandbox: false, channel: 'partner-cart' },
      eventId: EVENT_ID,
      requests: [{ tickets: [{ priceTypeId: ADULT, priceLevelId: 'PL1', quantity: 2 }] }],
    });
    const perTicket = offer.faceValueMinor + offer.serviceFeeMinor + offer.serviceFeeTaxMinor;
    const perOrder = offer.processingFeeMinor + offer.processingFeeTaxMinor;
    expect(held.priced.totals.grand).toBe(perTicket * 2 + perOrder);
  });

  it('creates a fan cart, pays and purchases it; a retried purchase answers the same token', async () => {
    const created = await commerce.create(fan, [product()]);
    expect(created.view.cart).toMatchObject({
      status: 'HELD',
      channel: 'commerce',
      fanId: 'fan-1',
    });
    expect(created.offers.map((o) => o.id)).toEqual([offerId(ADULT, 'PL1')]);
    expect(created.view.priced.totals.merchandise).toBe(10_000);
    const id = created.view.cart.id;
    // Another fan of the same app, or another app, does not see it.
    await expect(commerce.get({ ...fan, fanId: 'fan-2' }, id)).rejects.toMatchObject({
      kind: 'not_found',
    });
    await expect(commerce.get({ ...fan, appId: 'app-2' }, id)).rejects.toMatchObject({
      kind: 'not_found',
    });
    const deliveries = await commerce.deliveries('app-1', id);
    expect(deliveries.currency).toBe('GBP');
    expect(deliveries.deliveries[0]).toMatchObject({ id: 'ETICKET', deliveryType: 'DIGITAL' });
    await commerce.selectDelivery(fan, id, 'ETICKET');
    const paid = await commerce.addPayment(fan, id, billing(created.view.priced.totals.unpaid));
    expect(paid.view.cart.status).toBe('PAID');
    const first = await commerce.purchase(fan, id);
    expect(first.result.order).toMatchObject({ cartId: id, fanId: 'fan-1', channel: 'commerce' });
    expect(first.result.orderToken.length).toBeGreaterThan(20);
    const again = await commerce.purchase(fan, id);
    expect(again.result.orderToken).toBe(first.result.orderToken);
    expect(again.result.order.id).toBe(first.result.order.id);
    expect(connector.calls.createOrder).toBe(1);
  });

  it('refuses a protected offer without its password (403), and holds it with the password', async () => {
    const special = offerId(FAN_CLUB, 'PL1');
    await expect(
      commerce.create(fan, [product({ offers: [{ offer: special, qty: 1, password: '' }] })]),
    ).rejects.toMatchObject({ kind: 'permission_denied' });
    await expect(
      commerce.create(fan, [product({ offers: [{ offer: special, qty: 1, password: 'nope' }] })]),
    ).rejects.toMatchObject({ kind: 'permission_denied' });
    const held = await commerce.create(fan, [
      product({ offers: [{ offer: special, qty: 1, password: PASSWORD }] }),
    ]);
    expect(held.view.cart.status).toBe('HELD');
    expect(JSON.stringify(held.view.cart)).not.toContain(PASSWORD);
  });

  it('refuses unknown offers, mixed events, quantities over the limit and bad filters', async () => {
    const refusals: Array<[ProductInput[], string]> = [
      [[product({ offers: [{ offer: 'bogus', qty: 1, password: '' }] })], 'invalid_argument'],
      [
        [product({ offers: [{ offer: offerId('X', 'PL1'), qty: 1, password: '' }] })],
        'invalid_argument',
      ],
      [[product({ eventId: 'OTHEREVENT00001' })], 'invalid_argument'],
      [[product(), product({ product: 'OTHEREVENT00001' })], 'invalid_argument'],
      [
        [product({ offers: [{ offer: offerId(ADULT, 'PL2'), qty: 9, password: '' }] })],
        'invalid_argument',
      ],
      [[product({ minPrice: '60', maxPrice: '40' })], 'invalid_argument'],
      [[product({ minPrice: '1.234' })], 'invalid_argument'],
      [[product({ maxPrice: '40' })], 'invalid_argument'],
      [[product({ offers: [], qty: 0 })], 'invalid_argument'],
      [[], 'invalid_argument'],
    ];
    for (const [products, kind] of refusals) {
      await expect(commerce.create(fan, products), JSON.stringify(products)).rejects.toMatchObject({
        kind,
      });
    }
    await expect(commerce.create({ appId: 'app-1', fanId: '' }, [product()])).rejects.toMatchObject(
      {
        kind: 'unauthenticated',
      },
    );
    expect(connector.calls.createBooking).toBe(0);
  });

  it('picks the cheapest offer within the filters when only a quantity is given', async () => {
    const cheap = await commerce.create(fan, [product({ offers: [], qty: 2 })]);
    expect(cheap.view.cart.requests[0]!.tickets[0]).toMatchObject({
      priceTypeId: ADULT,
      priceLevelId: 'PL2',
    });
    const filtered = await commerce.create(fan, [product({ offers: [], qty: 1, minPrice: '40' })]);
    expect(filtered.view.cart.requests[0]!.tickets[0]).toMatchObject({ priceLevelId: 'PL1' });
    await expect(
      commerce.create(fan, [product({ offers: [], qty: 1, minPrice: '100' })]),
    ).rejects.toMatchObject({ kind: 'resource_exhausted' });
  });

  it('adds and removes offers by holding the new contents and releasing the old cart', async () => {
    const special = offerId(FAN_CLUB, 'PL1');
    const created = await commerce.create(fan, [
      product({ offers: [{ offer: special, qty: 1, password: PASSWORD }] }),
    ]);
    const changed = await commerce.updateProducts(fan, created.view.cart.id, [
      {
        op: 'add',
        product: product({ offers: [{ offer: offerId(ADULT, 'PL1'), qty: 2, password: '' }] }),
      },
    ]);
    expect(changed.view.cart.id).not.toBe(created.view.cart.id);
    const asked = changed.view.cart.requests.flatMap((r) => r.tickets);
    expect(asked.map((t) => [t.priceTypeId, t.quantity]).sort()).toEqual([
      [ADULT, 2],
      [FAN_CLUB, 1],
    ]);
    // The protected ticket kept its password (sealed again, never in clear).
    expect(asked.find((t) => t.priceTypeId === FAN_CLUB)!.accessCodeSealed).toBeDefined();
    expect(
      (await carts.get({ appId: 'app-1', sandbox: false }, created.view.cart.id)).cart.status,
    ).toBe('RELEASED');
    const fewer = await commerce.updateProducts(fan, changed.view.cart.id, [
      { op: 'remove', product: product({ offers: [{ offer: special, qty: 1, password: '' }] }) },
    ]);
    expect(fewer.view.cart.requests.flatMap((r) => r.tickets).map((t) => t.priceTypeId)).toEqual([
      ADULT,
    ]);
    await expect(
      commerce.updateProducts(fan, fewer.view.cart.id, [
        { op: 'remove', product: product({ offers: [] }) },
      ]),
    ).rejects.toMatchObject({ kind: 'invalid_argument' });
    await expect(
      commerce.updateProducts(fan, changed.view.cart.id, [{ op: 'add', product: product() }]),
    ).rejects.toMatchObject({ kind: 'failed_precondition' });
  });

  it('releases a cart (idempotent) and answers not found for another fan', async () => {
    const created = await commerce.create(fan, [product()]);
    await expect(
      commerce.release({ ...fan, fanId: 'fan-2' }, created.view.cart.id),
    ).rejects.toMatchObject({
      kind: 'not_found',
    });
    await commerce.release(fan, created.view.cart.id);
    await commerce.release(fan, created.view.cart.id);
    expect((await commerce.get(fan, created.view.cart.id)).view.cart.status).toBe('RELEASED');
  });
});
