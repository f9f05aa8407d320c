import { moneyToDecimal } from '@marquee/platform/money';
import type { CartRecord, Money } from '../../../app/partner-cart.js';
import { renderCart } from './render.js';

/**
 * The answers the OpenAPI document shows for the partner cart, made by the routes' own renderer
 * (`renderCart`) from a cart as the cart service describes it, so that they have the shape the API
 * sends: two tickets of a ticket type with their charges, the order processing fee and e-ticket
 * delivery, held (reserve, read), then paid.
 */

const usd = (amountMinor: number): Money => ({ amountMinor, currency: 'USD' });
/** When the examples are rendered: 9 minutes 20 seconds of hold are left. */
const NOW = Date.parse('2030-04-01T12:00:00Z');

const HELD: CartRecord = {
  id: 'b2f5c7e0-4f1d-4c1e-9a51-1d2c3e4f5a6b',
  eventId: 'EVT000000000001',
  status: 'HELD',
  holdTimeSeconds: 560,
  expiresAt: new Date(NOW + 560_000),
  language: 'en-us',
  ticketItems: [
    {
      id: 1,
      areaId: '1',
      areaDescription: 'Floor',
      section: 'FLR',
      row: 'C',
      startSeat: '11',
      endSeat: '12',
      generalAdmission: false,
      quantity: 2,
      tickets: [
        {
          id: '000000000001',
          description: 'Adult',
          quantity: 2,
          inventoryType: 'PRIMARY',
          priceLevelId: '1',
          charges: [
            { type: 'face_value', price: usd(4500), quantity: 2, feeType: 'per ticket' },
            {
              type: 'service',
              price: usd(750),
              tax: usd(60),
              quantity: 2,
              feeType: 'per ticket',
            },
            { type: 'facility', price: usd(200), quantity: 2, feeType: 'per ticket' },
          ],
        },
      ],
      totals: { merchandise: usd(9000), fee: usd(1900), tax: usd(120), grand: usd(11020) },
      seats: ['11', '12'],
      inventoryType: 'PRIMARY',
    },
  ],
  delivery: {
    id: 'ETICKET',
    carrier: 'Marquee',
    serviceLevel: 'ETICKET',
    requiresAddress: false,
    descriptionLong: 'Tickets in your account, ready to show on your phone at the door.',
    descriptionShort: 'Mobile tickets',
    eta: 'Available 24 hours before the event',
    totals: { fee: usd(0), grand: usd(0) },
    rank: 1,
  },
  processingFee: usd(300),
  payments: [],
  agreements: [
    {
      name: 'terms',
      locale: 'en-us',
      text: 'I accept the terms of sale.',
      type: 'boolean',
      agreementUrl: 'https://tickets.example.com/terms',
    },
  ],
  totals: {
    merchandise: usd(9000),
    fee: usd(2200),
    tax: usd(120),
    delivery: usd(0),
    upsell: usd(0),
    grand: usd(11320),
    unpaid: usd(11320),
  },
  currency: 'USD',
  sandbox: false,
  failureCode: '',
  failureMessage: '',
  secureEntryEnabled: true,
};

const PAID: CartRecord = {
  ...HELD,
  status: 'PAID',
  payments: [
    {
      id: '1',
      paymentId: 'pi_3PqExample0001',
      type: 'CC',
      amount: usd(11320),
      expireMonth: 12,
      expireYear: 2032,
      issuer: 'VISA',
      maskedNumber: '4242',
    },
  ],
  totals: { ...HELD.totals, unpaid: usd(0) },
};

/** A held cart: the answer of reserve (`POST …/cart`) and of a read (`GET …/cart`). */
export const HELD_CART_EXAMPLE = renderCart(HELD, NOW);
/** The cart once paid: the answer of the payment (`PUT …/cart/payment`). */
export const PAID_CART_EXAMPLE = renderCart(PAID, NOW);
/** The answer of the commit (`PUT …/cart`): the order and its order token, given once. */
export const COMMIT_EXAMPLE = {
  cart_id: PAID.id,
  order_number: '12-34567/NYC',
  order_id: 'ord_7d3c1a9e52b04f6a',
  order_token: 'otk_4f1d2c3e4f5a6b7c8d9e0f1a2b3c4d5e',
  redemption_url: 'https://tickets.example.com/orders/ord_7d3c1a9e52b04f6a',
  grand_total: moneyToDecimal(PAID.totals.grand),
  currency_code: PAID.currency,
};
