import {
  CartStatus,
  GetEventOffersResponse,
  InventoryType,
  ShoppingCart,
} from '@marquee/proto/cart/v1';
import { cartResult, offersResult } from './shapes.js';

/**
 * The answers the OpenAPI document shows for commerce, made by the routes' own renderers
 * (shapes.ts) from what cart's CommerceService answers, so that they have the shape the API sends:
 * an event's offers (one standard offer in two price zones), and a cart holding two of its tickets.
 */

const usd = (amountMinor: number) => ({ amountMinor, currency: 'USD' });
const EVENT_ID = 'EVT000000000001';

/** `GET /events/{id}/offers`: one offer, two price zones, their areas and charges. */
export const OFFERS_EXAMPLE = offersResult(
  GetEventOffersResponse.fromPartial({
    eventId: EVENT_ID,
    eventName: 'Spring Concert',
    currency: 'USD',
    limitMax: 8,
    offers: [
      {
        id: '000000000001',
        name: 'Adult',
        description: 'Standard admission',
        rank: 1,
        offerType: 'standard',
        currency: 'USD',
        start: new Date('2029-01-01T15:00:00Z'),
        end: new Date('2030-05-01T23:00:00Z'),
        prices: ['1', '2'].map((zone, i) => ({
          priceZoneId: zone,
          value: usd(i === 0 ? 4500 : 9900),
          total: usd(i === 0 ? 5510 : 11240),
          fees: [
            { value: usd(i === 0 ? 750 : 1000), label: 'Service fee', type: 'service' },
            { value: usd(200), label: 'Facility charge', type: 'facility' },
          ],
          taxes: [{ value: usd(i === 0 ? 60 : 140), label: 'Sales tax', type: 'tax' }],
        })),
        limit: { min: 1, max: 8, sellableQty: 1, multiples: 1 },
        areaIds: ['1', '2'],
        priceZoneIds: ['1', '2'],
        priceTypeId: '000000000001',
        priceLevelId: '1',
      },
    ],
    priceZones: [
      { id: '1', name: 'Floor', currency: 'USD', offerIds: ['000000000001'], areaIds: ['1'] },
      { id: '2', name: 'Lower bowl', currency: 'USD', offerIds: ['000000000001'], areaIds: ['2'] },
    ],
    areas: [
      {
        id: '1',
        rank: 1,
        name: 'Floor',
        description: 'Floor seating',
        areaType: 'seated',
        offerIds: ['000000000001'],
        priceZoneIds: ['1'],
      },
      {
        id: '2',
        rank: 2,
        name: 'Lower bowl',
        description: 'Sections 101 to 124',
        areaType: 'seated',
        offerIds: ['000000000001'],
        priceZoneIds: ['2'],
      },
    ],
    metadata: { sourceName: 'partner', sourceId: EVENT_ID },
  }),
);

/** `POST /shopping/carts` (201): a held cart of two tickets, with its event, product and offer. */
export const CART_EXAMPLE = cartResult(
  ShoppingCart.fromPartial({
    fanId: 'fan_5b0c9a7e',
    productId: EVENT_ID,
    eventName: 'Spring Concert',
    offers: [
      {
        id: '000000000001',
        name: 'Adult',
        description: 'Standard admission',
        priceTypeId: '000000000001',
        priceLevelId: '1',
      },
    ],
    cart: {
      id: 'b2f5c7e0-4f1d-4c1e-9a51-1d2c3e4f5a6b',
      eventId: EVENT_ID,
      status: CartStatus.CART_STATUS_HELD,
      holdTimeSeconds: 600,
      expiresAt: new Date('2030-04-01T12:10:00Z'),
      language: 'en-us',
      currency: 'USD',
      ticketItems: [
        {
          id: 1,
          areaId: '1',
          areaDescription: 'Floor',
          section: 'FLR',
          row: 'C',
          startSeat: '11',
          endSeat: '12',
          quantity: 2,
          inventoryType: InventoryType.INVENTORY_TYPE_PRIMARY,
          seats: ['11', '12'],
          tickets: [
            {
              id: '000000000001',
              description: 'Adult',
              quantity: 2,
              inventoryType: InventoryType.INVENTORY_TYPE_PRIMARY,
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
        },
      ],
      processingFee: usd(300),
      totals: {
        merchandise: usd(9000),
        fee: usd(2200),
        tax: usd(120),
        delivery: usd(0),
        upsell: usd(0),
        grand: usd(11320),
        unpaid: usd(11320),
      },
    },
  }),
  201,
);
