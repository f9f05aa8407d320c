import {
  DEFAULT_FEES,
  orderFees,
  parseDecimal,
  ticketPrice,
  toDecimal,
} from '@marquee/platform/money';
import { CartStatus, ShoppingCart } from '@marquee/proto/cart/v1';
import { Event, PriceRangeType } from '@marquee/proto/catalog/v1';
import { eventBody } from '@marquee/discovery-documents';
import { describe, expect, it } from 'vitest';
import type { CartRecord, EventAvailability } from '../src/app/partner-cart.js';
import type { EntryOrder } from '../src/app/secure-entry.js';
import { decimal } from '../src/ports/http/commerce/money.js';
import { cartResult } from '../src/ports/http/commerce/shapes.js';
import { intlAreas, intlEvent } from '../src/ports/http/discovery/international-shapes.js';
import { renderAvailability, renderCart } from '../src/ports/http/partner-cart/render.js';
import { renderOrder } from '../src/ports/http/secure-entry/order-read-routes.js';
import { major } from '../src/adapters/top-picks-client.js';
import { toAmount } from '../src/adapters/deals-client.js';

/**
 * One face value per currency read through every API that shows it: Discovery v2 `priceRanges`,
 * international discovery (event and areas), the partner cart's availability and cart, the order
 * read, commerce, top picks and deals. Each shows the ISO 4217 decimal of the same minor units.
 */
const CASES = [
  // currency, minor units, JSON number, decimal string
  { currency: 'KWD', minor: 45_500, number: 45.5, text: '45.500' },
  { currency: 'JPY', minor: 4_500, number: 4_500, text: '4500' },
  { currency: 'IDR', minor: 150_000_000, number: 1_500_000, text: '1500000.00' },
  { currency: 'EUR', minor: 4_550, number: 45.5, text: '45.50' },
  { currency: 'IQD', minor: 25_000, number: 25, text: '25.000' },
  { currency: 'HUF', minor: 1_234_500, number: 12_345, text: '12345.00' },
] as const;

const catalogEvent = (currency: string, minor: number) => {
  const amount = { amountMinor: minor, currency };
  return Event.fromPartial({
    id: 'MONEY0000000001',
    active: true,
    priceRanges: [{ type: PriceRangeType.PRICE_RANGE_TYPE_STANDARD, min: amount, max: amount }],
    ticketing: {
      currency,
      priceLevels: [{ id: '1' }],
      pricePeriods: [{ id: 'P', prices: [{ priceLevelId: '1', priceTypeId: 'A', amount }] }],
    },
  });
};

const availability = (currency: string, minor: number): EventAvailability => ({
  eventId: 'E',
  secureEntryEnabled: true,
  currency,
  ticketLimit: 0,
  onSale: true,
  areas: [],
  totalAvailable: 0,
  offers: [
    {
      ticketTypeId: 'A',
      priceLevelId: '1',
      name: 'Adult',
      faceValue: { amountMinor: minor, currency },
      charges: [],
      protected: false,
    },
  ],
});

const cart = (currency: string, minor: number): CartRecord => ({
  id: 'c',
  eventId: 'E',
  status: 'HELD' as CartRecord['status'],
  holdTimeSeconds: 60,
  language: 'en',
  ticketItems: [],
  payments: [],
  agreements: [],
  totals: {
    merchandise: { amountMinor: minor, currency },
    grand: { amountMinor: minor, currency },
  },
  currency,
  sandbox: false,
  failureCode: '',
  failureMessage: '',
  secureEntryEnabled: true,
});

const order = (currency: string, minor: number): EntryOrder => ({
  orderId: 'o',
  orderNumber: '1',
  voided: false,
  customerEmail: 'fan@example.test',
  thirdPartyAccountId: 'fan',
  delivery: { carrier: '', serviceLevel: '', description: '' },
  deviceId: '',
  deviceType: '',
  deviceOs: '',
  tickets: [
    {
      ticketId: 't',
      partnerTicketId: 'p',
      barcodeId: 'b',
      displayId: 'd',
      eventId: 'E',
      section: 'S',
      row: 'R',
      seat: '1',
      generalAdmission: false,
      voided: false,
      token: '',
      renderType: '',
      segmentType: '',
      charges: [{ type: 'face_value', subType: '', description: '', amountMinor: minor, currency }],
      errorCode: 0,
      errorMessage: '',
    },
  ],
});

describe.each(CASES)('$currency $minor minor units read the same everywhere', (c) => {
  it('Discovery v2 priceRanges', () => {
    const body = eventBody(catalogEvent(c.currency, c.minor), undefined) as {
      priceRanges: { min: number; max: number; currency: string }[];
    };
    expect(body.priceRanges[0]).toMatchObject({
      currency: c.currency,
      min: c.number,
      max: c.number,
    });
  });

  it('international discovery: event and areas (excluding fees)', () => {
    const event = catalogEvent(c.currency, c.minor);
    const shown = intlEvent(event, undefined, new Map(), undefined, DEFAULT_FEES);
    expect(shown.price_ranges.excluding_ticket_fees).toEqual({ min: c.number, max: c.number });
    const areas = intlAreas(event, undefined, DEFAULT_FEES).event.areas;
    expect(areas[0]!.price_ranges.excluding_ticket_fees).toEqual({ min: c.number, max: c.number });
    // Including fees: the per-ticket total a cart charges (ticketPrice, as priceCart does).
    const charged = toDecimal(ticketPrice(c.minor, DEFAULT_FEES).totalMinor, c.currency);
    expect(charged).toBeGreaterThan(c.number);
    expect(areas[0]!.price_ranges.including_ticket_fees).toEqual({ min: charged, max: charged });
    expect(shown.price_ranges.including_ticket_fees).toEqual({ min: charged, max: charged });
  });

  it('partner cart availability and cart, order read, commerce, top picks, deals', () => {
    const money = { amountMinor: c.minor, currency: c.currency };
    const tickets = renderAvailability(availability(c.currency, c.minor), 0).event.tickets;
    expect(tickets[0]!.offers[0]!.faceValue).toBe(c.number);
    expect(renderCart(cart(c.currency, c.minor), 0).cart.totals.merchandise).toBe(c.number);
    const read = renderOrder(order(c.currency, c.minor), 'app');
    expect(read.tickets[0]!.charges[0]!.amount).toEqual({ amount: c.text, currency: c.currency });
    expect(decimal(c.minor, c.currency)).toBe(c.text);
    expect(major(money)).toBe(c.number);
    expect(toAmount(money)).toBe(c.number);
  });
});

describe.each(CASES)('$currency: the order processing fee is shown with its tax', (c) => {
  // A cart of one ticket at the face value, priced as cart prices it (ticketPrice, orderFees).
  const perTicket = ticketPrice(c.minor, DEFAULT_FEES);
  const perOrder = orderFees(DEFAULT_FEES);
  const m = (amountMinor: number) => ({ amountMinor, currency: c.currency });
  const fee = perTicket.serviceFeeMinor + perOrder.processingFeeMinor;
  const tax = perTicket.serviceFeeTaxMinor + perOrder.processingFeeTaxMinor;
  const grand = c.minor + fee + tax;
  const priced = {
    ...cart(c.currency, c.minor),
    processingFee: m(perOrder.processingFeeMinor),
    processingFeeTax: m(perOrder.processingFeeTaxMinor),
    totals: { merchandise: m(c.minor), fee: m(fee), tax: m(tax), grand: m(grand) },
  };

  it('partner cart: the processing item totals the fee and its tax', () => {
    const shown = renderCart(priced, 0).cart;
    const item = shown.items.find((i) => i.type === 'processing') as {
      totals: { fee: number; tax: number; grand: number };
    };
    expect(item.totals).toMatchObject({
      fee: toDecimal(perOrder.processingFeeMinor, c.currency),
      tax: toDecimal(perOrder.processingFeeTaxMinor, c.currency),
      grand: toDecimal(perOrder.totalMinor, c.currency),
    });
    expect(shown.totals.grand).toBe(toDecimal(grand, c.currency));
  });

  it('commerce cart: each fee in fees, its tax in taxes (tickets and processing)', () => {
    const shown = cartResult(
      ShoppingCart.fromPartial({
        cart: {
          id: 'c',
          currency: c.currency,
          status: CartStatus.CART_STATUS_HELD,
          ticketItems: [
            {
              id: 1,
              quantity: 1,
              tickets: [
                {
                  id: 'ADULT',
                  quantity: 1,
                  charges: [
                    { type: 'face_value', price: m(c.minor), quantity: 1, tax: m(0) },
                    {
                      type: 'service',
                      price: m(perTicket.serviceFeeMinor),
                      quantity: 1,
                      tax: m(perTicket.serviceFeeTaxMinor),
                      feeType: 'per ticket',
                    },
                  ],
                },
              ],
            },
          ],
          processingFee: m(perOrder.processingFeeMinor),
          processingFeeTax: m(perOrder.processingFeeTaxMinor),
          totals: { merchandise: m(c.minor), fee: m(fee), tax: m(tax), grand: m(grand) },
        },
      }),
      200,
    ).cart.attributes;
    expect(shown.fees).toEqual([
      {
        label: 'Order processing fee',
        amount: decimal(perOrder.processingFeeMinor, c.currency),
        type: 'processing',
      },
    ]);
    expect(shown.taxes).toEqual([
      {
        label: 'Tax on order processing fee',
        amount: decimal(perOrder.processingFeeTaxMinor, c.currency),
        type: 'tax',
      },
    ]);
    const [group] = shown.reservations[0]!.itemGroups;
    expect(group!.fees).toEqual([
      { label: 'service', amount: decimal(perTicket.serviceFeeMinor, c.currency), type: 'service' },
    ]);
    expect(group!.taxes).toEqual([
      {
        label: 'service tax',
        amount: decimal(perTicket.serviceFeeTaxMinor, c.currency),
        type: 'tax',
      },
    ]);
    const parts = [group!.perItemPrice, ...[...group!.fees, ...group!.taxes].map((x) => x.amount)];
    const sum = parts.reduce((total, x) => total + parseDecimal(x, c.currency)!, 0);
    expect(sum).toBe(perTicket.totalMinor);
  });
});

describe('commerce cart: the taxes listed add up to totals.taxes', () => {
  // Two lines, three groups of several tickets each, the processing fee: priced as cart prices them.
  const m = (amountMinor: number) => ({ amountMinor, currency: 'USD' });
  const faces = [
    [5_000, 2],
    [3_250, 3],
    [1_000, 1],
  ] as const;
  const perOrder = orderFees(DEFAULT_FEES);
  const ticketGroup = ([face, quantity]: readonly [number, number], index: number) => {
    const { serviceFeeMinor, serviceFeeTaxMinor } = ticketPrice(face, DEFAULT_FEES);
    return {
      id: `T${index}`,
      quantity,
      charges: [
        { type: 'face_value', price: m(face), quantity, tax: m(0), feeType: 'per ticket' },
        {
          type: 'service',
          price: m(serviceFeeMinor),
          quantity,
          tax: m(serviceFeeTaxMinor),
          feeType: 'per ticket',
        },
      ],
    };
  };
  const sumOf = (pick: (p: ReturnType<typeof ticketPrice>) => number) =>
    faces.reduce((s, [face, quantity]) => s + pick(ticketPrice(face, DEFAULT_FEES)) * quantity, 0);
  const merchandise = sumOf((p) => p.faceValueMinor);
  const fee = sumOf((p) => p.serviceFeeMinor) + perOrder.processingFeeMinor;
  const tax = sumOf((p) => p.serviceFeeTaxMinor) + perOrder.processingFeeTaxMinor;
  const shown = cartResult(
    ShoppingCart.fromPartial({
      cart: {
        id: 'c',
        currency: 'USD',
        status: CartStatus.CART_STATUS_HELD,
        ticketItems: [
          { id: 1, quantity: 5, tickets: [ticketGroup(faces[0], 0), ticketGroup(faces[1], 1)] },
          { id: 2, quantity: 1, tickets: [ticketGroup(faces[2], 2)] },
        ],
        processingFee: m(perOrder.processingFeeMinor),
        processingFeeTax: m(perOrder.processingFeeTaxMinor),
        totals: {
          merchandise: m(merchandise),
          fee: m(fee),
          tax: m(tax),
          grand: m(merchandise + fee + tax),
        },
      },
    }),
    200,
  ).cart.attributes;
  const minor = (x: string) => parseDecimal(x, 'USD')!;
  const groups = shown.reservations[0]!.itemGroups;
  const listed = (part: 'fees' | 'taxes') =>
    groups.reduce(
      (s, g) => s + g.quantity * g[part].reduce((t, x) => t + minor(x.amount), 0),
      shown[part].reduce((t, x) => t + minor(x.amount), 0),
    );

  it('lists a tax in every item group and at cart level, none empty', () => {
    expect(groups).toHaveLength(3);
    for (const g of groups) expect(g.taxes.length).toBeGreaterThan(0);
    expect(shown.taxes.length).toBeGreaterThan(0);
  });

  it('item taxes × quantities plus the cart taxes are totals.taxes, and likewise fees', () => {
    expect(listed('taxes')).toBe(minor(shown.totals.taxes));
    expect(listed('fees')).toBe(minor(shown.totals.fees));
    const prices = groups.reduce((s, g) => s + g.quantity * minor(g.perItemPrice), 0);
    expect(prices).toBe(minor(shown.totals.price));
    expect(prices + listed('fees') + listed('taxes')).toBe(minor(shown.totals.total));
  });
});
