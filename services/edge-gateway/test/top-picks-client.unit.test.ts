import {
  FanSessionOutcome,
  InventoryType,
  ListingState,
  PickType,
  type GetTopPicksResponse,
} from '@marquee/proto/cart/v1';
import { describe, expect, it } from 'vitest';
import { major, toListingRecord, toTopPicksDocument } from '../src/adapters/top-picks-client.js';

const eur = (amountMinor: number) => ({ amountMinor, currency: 'EUR' });

describe('top picks client mapping', () => {
  it('renders minor units as decimals of the currency', () => {
    expect(major(eur(8960))).toBe(89.6);
    expect(major({ amountMinor: 1500, currency: 'JPY' })).toBe(1500);
    expect(major(undefined)).toBe(0);
  });

  it('maps the gRPC answer to the public document', () => {
    const answer: GetTopPicksResponse = {
      fanSession: {
        id: 'sid',
        startedAt: new Date(1_900_000_000_000),
        expiresAt: new Date(1_900_003_600_000),
        outcome: FanSessionOutcome.FAN_SESSION_OUTCOME_RENEWED,
      },
      picks: [
        {
          type: PickType.PICK_TYPE_GENERAL_SEATING,
          quality: 0.5,
          areaId: 'GA',
          areaName: 'Standing',
          areaDescription: '',
          descriptions: ['Standing'],
          section: '',
          inventoryType: InventoryType.INVENTORY_TYPE_PRIMARY,
          row: '',
          offerIds: ['o1'],
          seats: [],
          priceLevelId: 'PL',
        },
        {
          type: PickType.PICK_TYPE_SEATS,
          quality: 0.9,
          areaId: 'A',
          areaName: 'A',
          areaDescription: '',
          descriptions: [],
          section: 'S',
          inventoryType: InventoryType.INVENTORY_TYPE_RESALE,
          row: 'C',
          offerIds: ['EV.L'],
          seats: ['4', '5'],
          listingDetails: {
            location: 'Section S, Row C, Seats 4-5',
            estimatedDelivery: new Date(0),
          },
          priceLevelId: 'PL',
        },
      ],
      offers: [
        {
          offerId: 'EV.L',
          name: 'Resale',
          ticketTypeId: 'EV.L',
          priceLevelId: 'PL',
          description: '',
          faceValue: eur(8000),
          totalPrice: eur(4550),
          charges: [
            { reason: 'resale price', type: 'price', amount: eur(4550), feeType: 'per ticket' },
          ],
          limitMin: 2,
          limitMax: 2,
          protected: false,
          inventoryType: InventoryType.INVENTORY_TYPE_RESALE,
          listingNotes: {
            deliveryDate: new Date(0),
            deliveryMethod: 'ETICKET',
            deliveryDescription: 'd',
            sellerNotes: 'n',
          },
        },
      ],
      eventDetails: {
        id: 'EV',
        granularPricing: true,
        secureTixEnabled: true,
        allInclusivePricing: false,
        venueMapUrl: '',
        listingsDisclaimer: 'x',
        transferEligible: true,
        transferExplanation: 'y',
        agreements: [
          { name: 'a', locale: 'en-us', text: 't', type: 'acknowledgement', agreementUrl: '' },
        ],
        currency: 'EUR',
        venueMapWithLabelsUrl: '',
      },
      page: 1,
      size: 10,
      totalElements: 2,
      totalPages: 1,
      messages: ['SESSION_HAS_EXPIRED_PRICE_MIGHT_HAVE_CHANGED'],
    };
    const doc = toTopPicksDocument(answer);
    expect(doc.fanSession).toEqual({
      resaleSid: {
        sessionId: 'sid',
        sessionStartTime: 1_900_000_000_000,
        sessionExpireTime: 1_900_003_600_000,
      },
    });
    expect(doc.messages).toEqual(['SESSION_HAS_EXPIRED_PRICE_MIGHT_HAVE_CHANGED']);
    expect(doc.page).toEqual({ number: 1, size: 10, totalElements: 2, totalPages: 1 });
    expect(doc.picks[0]).toEqual({
      type: 'general-seating',
      quality: 0.5,
      area: { id: 'GA', name: 'Standing', description: '' },
      descriptions: ['Standing'],
      section: '',
      selection: 'standard',
      snapshotImageUrl: null,
      offers: ['o1'],
    });
    expect(doc.picks[1]).toMatchObject({ selection: 'resale', row: 'C', seats: ['4', '5'] });
    expect(doc._embedded.offer[0]).toMatchObject({
      currency: 'EUR',
      faceValue: 80,
      totalPrice: 45.5,
      charges: [{ reason: 'resale price', type: 'price', amount: 45.5, fee_type: 'per ticket' }],
      limit: { min: 2, max: 2 },
      inventoryType: 'RESALE',
      listingNotes: { deliveryDate: '1970-01-01T00:00:00.000Z', sellerNotes: 'n' },
    });
    expect(doc.eventDetails).toMatchObject({
      venueMapUrl: null,
      transfer: { eligible: true, explanation: 'y' },
      agreements: [{ name: 'a', agreement_url: '' }],
      importantInformation: null,
    });
  });

  it('maps a listing with optional fields only when set', () => {
    const record = toListingRecord({
      id: 'EV.L',
      eventId: 'EV',
      orderId: 'o',
      ticketIds: ['t'],
      price: eur(100),
      faceValue: eur(200),
      areaId: 'A',
      section: '',
      row: '',
      seats: [],
      priceLevelId: 'PL',
      priceTypeId: 'PT',
      state: ListingState.LISTING_STATE_SOLD,
      holdCartId: '',
      soldOrderId: 'o2',
      sellerNotes: '',
      sellerAppId: 'app',
      generalAdmission: true,
    });
    expect(record).toMatchObject({
      state: 'SOLD',
      soldOrderId: 'o2',
      price: { amount: 100, currency: 'EUR' },
    });
    expect(record).not.toHaveProperty('holdCartId');
    expect(record).not.toHaveProperty('createdAt');
  });
});
