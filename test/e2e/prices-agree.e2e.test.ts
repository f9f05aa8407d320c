import { randomBytes } from 'node:crypto';
import { decimalNumberToMinor, parseDecimal } from '@marquee/platform/money';
import { startGroupsAtEnd } from '@marquee/platform/testing';
import { eventChangedTopic, orderCancelledTopic, orderConfirmedTopic } from '@marquee/proto/topics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvedCard } from '../support/cards.js';
import { createFan, fanAccessToken } from '../support/fan-token.js';
import { requireInfra } from '../support/infra.js';
import {
  holdCart,
  json,
  payAndCommit,
  readOrderWhenIssued,
  releaseCart,
  type Json,
  type PartnerCartClient,
} from '../support/partner-cart.js';
import { grantAppAccess, importPartnerEvent } from '../support/partner-event.js';
import { startStack, type Stack } from '../support/stack.js';

const infra = requireInfra();

/**
 * One face value per currency, as the partner writes it (integer minor units), and as every API
 * must show it: a JSON number in major units, and the decimal string of the APIs that write
 * strings (ISO 4217: KWD 3 decimals, JPY none, IDR 2).
 */
const PRICES = [
  { currency: 'KWD', faceValueMinor: 45_500, number: 45.5, text: '45.500' },
  { currency: 'JPY', faceValueMinor: 4_500, number: 4_500, text: '4500' },
  { currency: 'IDR', faceValueMinor: 150_000_000, number: 1_500_000, text: '1500000.00' },
  { currency: 'EUR', faceValueMinor: 4_550, number: 45.5, text: '45.50' },
] as const;
type Currency = (typeof PRICES)[number]['currency'];

const QUANTITY = 2;
const PRODUCTION = '/partners/v1';
const SESSION = 'x-platform-session-sid';

/** A JSON number amount of `currency` in minor units; not an amount of it (too many decimals): fails. */
function minor(amount: number, currency: string): number {
  const value = decimalNumberToMinor(amount, currency);
  expect(value, `${amount} as ${currency}`).toBeDefined();
  return value!;
}

/** A decimal string amount (commerce, the order read) in minor units. */
function minorOfText(amount: string, currency: string): number {
  const value = parseDecimal(amount, currency);
  expect(value, `"${amount}" as ${currency}`).toBeDefined();
  return value!;
}

/**
 * What a held partner cart charges, in minor units: per ticket (the ticket lines' charges with
 * their taxes, over the tickets), per order (the processing item) and in all. The lines' own
 * totals must say the same as their charges.
 */
function charged(result: Json, currency: string) {
  const items = result.cart.items as Json[];
  const lines = items.filter((item) => item.type === 'ticket');
  let ticketsMinor = 0;
  let count = 0;
  for (const line of lines)
    for (const group of line.tickets as Json[]) {
      count += group.quantity as number;
      for (const c of group.charges as Json[])
        ticketsMinor += (minor(c.price, currency) + minor(c.tax, currency)) * c.quantity;
    }
  const linesGrand = lines.reduce((sum, line) => sum + minor(line.totals.grand, currency), 0);
  expect(linesGrand, 'the ticket lines total their charges').toBe(ticketsMinor);
  const perOrder = items
    .filter((item) => item.type === 'processing')
    .reduce((sum, item) => sum + minor(item.totals.grand, currency), 0);
  expect(result.cart.totals.currency_code).toBe(currency);
  expect(ticketsMinor % count).toBe(0);
  return {
    count,
    perTicket: ticketsMinor / count,
    perOrder,
    grand: minor(result.cart.totals.grand, currency),
  };
}

/** The sum of `charges[].amount` (numbers) of one `fee_type`, in minor units. */
const sumCharges = (charges: readonly Json[], feeType: string, currency: string): number =>
  charges
    .filter((c) => c.fee_type === feeType && c.type !== 'face_value')
    .reduce((sum, c) => sum + minor(c.amount, currency) * (c.quantity ?? 1), 0);

/**
 * A price shown is a price charged, end to end (every service its own process, real Kafka and a
 * real Mongo-wire server). Four partner events priced in KWD (3 decimals), JPY (none), IDR (2,
 * large amounts) and EUR are created at partner-reference and imported through 3p-connector. Each
 * API that shows a price before a sale (top picks, international discovery's areas, the partner
 * cart's availability offers, commerce offers) is read, then the cart it leads to is reserved: the
 * cart charges per ticket exactly the total shown (fees and taxes included where the API says they
 * are), and the whole cart that times the quantity plus the per-order charges. The face value reads
 * the same through Discovery v2, international discovery, availability, the cart and the order
 * reads after commit.
 */
describe.skipIf(!infra)('shown prices are charged prices (distributed mode)', () => {
  let sut: Stack;
  let client: PartnerCartClient;
  let fanToken: string;
  const events = new Map<Currency, string>();
  const marker = `pa${randomBytes(4).toString('hex')}`;

  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${sut.baseUrl}/admin/v1/${path}`, {
      method,
      headers: {
        authorization: `Bearer ${sut.adminToken}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  /** `path` with the app's key as `apikey` (the one way every API family takes it). */
  const withKey = (path: string) =>
    `${path}${path.includes('?') ? '&' : '?'}apikey=${encodeURIComponent(client.apiKey)}`;
  /** A GET with the app's key that must answer 200: its body and headers. */
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const answer = await fetch(`${sut.baseUrl}${withKey(path)}`, { headers });
    const body = await json(answer);
    expect(answer.status, `${path}: ${JSON.stringify(body)}`).toBe(200);
    return { body, headers: answer.headers };
  };
  /** A commerce call for the signed-in fan. */
  const commerce = (method: string, path: string, body?: unknown) =>
    fetch(`${sut.baseUrl}${withKey(`/commerce/v2${path}`)}`, {
      method,
      headers: {
        'x-platform-access-token': fanToken,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  const eventOf = (currency: Currency) => events.get(currency)!;

  beforeAll(async () => {
    // secure-entry's consumers start at the end of their topics: the local broker keeps every
    // earlier run's orders, which a fresh group would replay first; this test reads only its own.
    const entryGroup = `secure-entry.${marker}`;
    await startGroupsAtEnd(infra!.kafkaBrokers, [
      { groupId: entryGroup, topic: orderConfirmedTopic.name },
      { groupId: entryGroup, topic: orderCancelledTopic.name },
      { groupId: `${entryGroup}.events`, topic: eventChangedTopic.name },
    ]);
    sut = await startStack({
      kafkaBrokers: infra!.kafkaBrokers,
      mongoUrl: infra!.mongoUrl,
      serviceEnv: { 'secure-entry': { CONSUMER_GROUP: entryGroup } },
    });
    const redirectUri = 'https://e2e.example/cb';
    const created = await admin('POST', 'apps', {
      name: 'prices e2e',
      redirectUris: [redirectUri],
      // Prices are under test here, not the quota: no pause between calls.
      quota: { perSecond: 100 },
    });
    const app = await json(created);
    expect(created.status, JSON.stringify(app)).toBe(201);
    await grantAppAccess(sut, app.appId as string, {
      partnerDistribution: true,
      commerceShopping: true,
    });
    client = { sut, apiKey: app.apiKey as string, prefix: PRODUCTION };
    for (const price of PRICES) {
      const imported = await importPartnerEvent(sut, {
        apiKey: client.apiKey,
        marker: `${marker}${price.currency.toLowerCase()}`,
        currency: price.currency,
        faceValueMinor: price.faceValueMinor,
      });
      events.set(price.currency, imported.eventId);
    }
    const fan = { email: `prices-${marker}@example.com`, password: 'a long passphrase' };
    await createFan(sut, fan);
    fanToken = await fanAccessToken(
      sut,
      { clientId: app.clientId as string, clientSecret: app.clientSecret as string, redirectUri },
      fan,
    );
  }, 420_000);

  afterAll(async () => {
    await sut?.stop();
  });

  it('top picks → reserve: primary and resale picks are charged as shown (EUR)', async () => {
    const currency = 'EUR';
    const eventId = eventOf(currency);
    // A seller's two tickets, listed for resale at 30.00 each.
    const bought = await holdCart(client, eventId, [{ id: 'ADULT', quantity: QUANTITY }]);
    const order = await payAndCommit(client, eventId, {
      cartId: bought.cart_id as string,
      currency,
      card: approvedCard(PRODUCTION),
      account: `seller-${marker}`,
    });
    const sold = await json(await admin('GET', `orders/${encodeURIComponent(order.order_id)}`));
    const listed = await admin('POST', 'resale-listings', {
      orderId: order.order_id,
      ticketIds: (sold.tickets as Json[]).map((t) => t.ticketId),
      price: { amount: 3_000, currency },
    });
    const listing = await json(listed);
    expect(listed.status, JSON.stringify(listing)).toBe(201);

    const picks = await get(
      `/top-picks/v1/events/id/${eventId}?quantity=${QUANTITY}&selection=any`,
    );
    const session = { [SESSION]: picks.headers.get(SESSION)! };
    const offers = picks.body._embedded.offer as Json[];
    const resale = offers.find((o) => o.offerId === listing.id);
    const primary = offers.find((o) => o.inventoryType === 'PRIMARY' && o.ticketTypeId === 'ADULT');
    // The price a ticket is sold at is the offer's `face_value` charge: the listing's price for
    // a resale offer (its `faceValue` is the ticket's original face value).
    const priceOf = (offer: Json) =>
      (offer.charges as Json[]).find((c) => c.type === 'face_value' && c.fee_type === 'per ticket')
        ?.amount as number;
    expect(resale, JSON.stringify(offers)).toMatchObject({ inventoryType: 'RESALE' });
    expect(priceOf(resale!)).toBe(30);
    expect(primary, JSON.stringify(offers)).toMatchObject({ faceValue: 45.5 });
    expect(priceOf(primary!)).toBe(45.5);

    for (const offer of [primary!, resale!]) {
      expect(offer.currency).toBe(currency);
      const shown = minor(offer.totalPrice, currency);
      const charges = offer.charges as Json[];
      // The total shown is the price with the per-ticket charges (fees, taxes) listed with it.
      expect(shown).toBe(
        minor(priceOf(offer), currency) + sumCharges(charges, 'per ticket', currency),
      );
      expect(shown).toBeGreaterThan(minor(priceOf(offer), currency));
      const perOrder = sumCharges(charges, 'per order', currency);

      const cart = await holdCart(
        client,
        eventId,
        [{ id: offer.ticketTypeId, quantity: QUANTITY }],
        session,
      );
      const paid = charged(cart, currency);
      expect(paid.count).toBe(QUANTITY);
      expect(paid.perTicket, `${offer.inventoryType} per ticket`).toBe(shown);
      expect(paid.perOrder, `${offer.inventoryType} per order`).toBe(perOrder);
      expect(paid.grand).toBe(QUANTITY * shown + perOrder);
      await releaseCart(client, eventId, cart.cart_id as string);
    }
  }, 120_000);

  it.each(PRICES)(
    'international discovery areas → reserve: $currency including fees is charged',
    async ({ currency, number }) => {
      const eventId = eventOf(currency);
      const { body } = await get(`/mfxapi/v2/events/${eventId}/areas?domain=spain`);
      expect(body.event.currency).toBe(currency);
      const [area] = body.event.areas as Json[];
      expect(area!.price_ranges.excluding_ticket_fees).toEqual({ min: number, max: number });
      const including = area!.price_ranges.including_ticket_fees as { min: number; max: number };
      expect(including.max).toBe(including.min);
      const shown = minor(including.min, currency);
      expect(shown).toBeGreaterThan(minor(number, currency));

      const cart = await holdCart(client, eventId, [{ id: 'ADULT', quantity: QUANTITY }]);
      const paid = charged(cart, currency);
      // Including ticket fees is per ticket; the order processing fee is the cart's, once.
      expect(paid.perTicket).toBe(shown);
      expect(paid.grand).toBe(QUANTITY * shown + paid.perOrder);
      await releaseCart(client, eventId, cart.cart_id as string);
    },
  );

  it.each(PRICES)(
    'availability offers → reserve: $currency is charged as offered',
    async ({ currency, number }) => {
      const eventId = eventOf(currency);
      const { body } = await get(`${PRODUCTION}/events/${eventId}/availability`);
      expect(body.event.currency).toBe(currency);
      const offer = (body.event.tickets as Json[])
        .flatMap((level) => level.offers as Json[])
        .find((o) => o.ticketTypeId === 'ADULT');
      expect(offer).toMatchObject({ currency, faceValue: number });
      const charges = offer!.charges as Json[];
      const shown = minor(offer!.faceValue, currency) + sumCharges(charges, 'per ticket', currency);
      const perOrder = sumCharges(charges, 'per order', currency);
      expect(shown).toBeGreaterThan(minor(number, currency));

      const cart = await holdCart(client, eventId, [{ id: 'ADULT', quantity: QUANTITY }]);
      const paid = charged(cart, currency);
      expect(paid.count).toBe(QUANTITY);
      expect(paid.perTicket).toBe(shown);
      expect(paid.perOrder).toBe(perOrder);
      expect(paid.grand).toBe(QUANTITY * shown + perOrder);
      await releaseCart(client, eventId, cart.cart_id as string);
    },
  );

  it.each(PRICES)(
    'commerce offers → commerce cart: $currency is charged as offered',
    async ({ currency, text }) => {
      const eventId = eventOf(currency);
      const offered = await commerce('GET', `/events/${eventId}/offers.json`);
      const body = await json(offered);
      expect(offered.status, JSON.stringify(body)).toBe(200);
      const [offer] = body.offers as Json[];
      const price = (offer!.attributes.prices as Json[])[0]!;
      expect(offer!.attributes.currency).toBe(currency);
      expect(price.value).toBe(text);
      const shown = minorOfText(price.total, currency);
      // The total shown is the price with the fees and taxes the offer lists.
      const parts = [price.value, ...[...price.fees, ...price.taxes].map((c: Json) => c.value)];
      expect(parts.reduce((sum: number, p: string) => sum + minorOfText(p, currency), 0)).toBe(
        shown,
      );

      const created = await commerce('POST', '/shopping/carts', {
        products: [{ product: eventId, offers: [{ offer: offer!.id, qty: QUANTITY }] }],
      });
      let cart = await json(created);
      expect([201, 202], JSON.stringify(cart)).toContain(created.status);
      const cartId = cart.cart.id as string;
      for (let polls = 0; cart.cart.attributes.state === 'pending' && polls < 80; polls++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        cart = await json(await commerce('GET', `/shopping/carts/${cartId}`));
      }
      const attributes = cart.cart.attributes as Json;
      expect(attributes.state, JSON.stringify(cart)).toBe('held');
      let tickets = 0;
      let ticketsMinor = 0;
      for (const group of attributes.reservations[0].itemGroups as Json[]) {
        expect(group.offer).toBe(offer!.id);
        const each = [group.perItemPrice, ...[...group.fees, ...group.taxes].map((c) => c.amount)];
        const unit = each.reduce((sum: number, a: string) => sum + minorOfText(a, currency), 0);
        ticketsMinor += group.quantity * unit;
        tickets += group.quantity as number;
      }
      expect(tickets).toBe(QUANTITY);
      expect(ticketsMinor / tickets).toBe(shown);
      // The cart's own fees and taxes (the order processing fee and its tax) come once.
      const perOrder = [...(attributes.fees as Json[]), ...(attributes.taxes as Json[])].reduce(
        (sum, c) => sum + minorOfText(c.amount, currency),
        0,
      );
      expect(attributes.totals.currency).toBe(currency);
      expect(minorOfText(attributes.totals.total, currency)).toBe(QUANTITY * shown + perOrder);
      expect((await commerce('DELETE', `/shopping/carts/${cartId}`)).status).toBe(204);
    },
  );

  it.each(PRICES)(
    '$currency reads the same through discovery, availability, the cart and the order reads',
    async ({ currency, faceValueMinor, number, text }) => {
      const eventId = eventOf(currency);
      const discovered = (await get(`/discovery/v2/events/${eventId}`)).body;
      expect(discovered.priceRanges).toContainEqual(
        expect.objectContaining({ type: 'standard', currency, min: number, max: number }),
      );
      const intl = (await get(`/mfxapi/v2/events/${eventId}?domain=spain`)).body;
      expect(intl.currency).toBe(currency);
      expect(intl.price_ranges.excluding_ticket_fees).toEqual({ min: number, max: number });
      const areas = (await get(`/mfxapi/v2/events/${eventId}/areas?domain=spain`)).body;
      expect(areas.event.areas[0].price_ranges.excluding_ticket_fees).toEqual({
        min: number,
        max: number,
      });
      // The event's including-fees bounds are its one area's.
      expect(intl.price_ranges.including_ticket_fees).toEqual(
        areas.event.areas[0].price_ranges.including_ticket_fees,
      );
      const available = (await get(`${PRODUCTION}/events/${eventId}/availability`)).body;
      expect(available.event.tickets[0].offers[0]).toMatchObject({ currency, faceValue: number });

      const buyer = `buyer-${currency.toLowerCase()}-${marker}`;
      const cart = await holdCart(client, eventId, [{ id: 'ADULT', quantity: 1 }]);
      expect(cart.cart.totals).toMatchObject({ currency_code: currency, merchandise: number });
      const face = (cart.cart.items as Json[])
        .filter((item) => item.type === 'ticket')
        .flatMap((line) => line.tickets as Json[])
        .flatMap((t) => t.charges as Json[])
        .find((c) => c.type === 'face_value');
      expect(face).toMatchObject({ price: number, quantity: 1 });
      const order = await payAndCommit(client, eventId, {
        cartId: cart.cart_id as string,
        currency,
        card: approvedCard(PRODUCTION),
        account: buyer,
      });
      expect(order.currency_code).toBe(currency);
      const grandMinor = minor(order.grand_total as number, currency);

      // The order as the selling app reads it (secure-entry): the face value, and charges that add
      // up to what was paid.
      const read = await readOrderWhenIssued(client, order.order_token as string, {
        account: buyer,
        deviceId: `phone-${currency}`,
      });
      const charges = (read.tickets as Json[]).flatMap((t) => t.charges as Json[]);
      expect(charges.find((c) => c.sub_type === 'FACE_VALUE')?.amount).toEqual({
        amount: text,
        currency,
      });
      expect(charges.reduce((sum, c) => sum + minorOfText(c.amount.amount, currency), 0)).toBe(
        grandMinor,
      );
      // And as an operator reads it (cart's order, minor units).
      const operator = await json(
        await admin('GET', `orders/${encodeURIComponent(order.order_id)}`),
      );
      expect(operator.tickets[0].unitPrice).toEqual({ amountMinor: faceValueMinor, currency });
      expect(operator.order.grandTotal).toEqual({ amountMinor: grandMinor, currency });
    },
    120_000,
  );
});
