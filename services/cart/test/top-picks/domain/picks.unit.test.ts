import { describe, expect, it } from 'vitest';
import type { ResaleListing } from '../../../src/top-picks/domain/listing.js';
import {
  adjacentBlocks,
  buildPicks,
  levelScores,
  paginate,
  priceScore,
  quality,
  resaleOffers,
  sortRows,
  type AreaSeat,
  type PicksEvent,
  type PicksQuery,
  type PrimaryOffer,
} from '../../../src/top-picks/domain/picks.js';

const now = new Date('2030-05-01T10:00:00Z');
const eur = (amountMinor: number) => ({ amountMinor, currency: 'EUR' });
const seats = (row: string, numbers: number[]): AreaSeat[] =>
  numbers.map((n) => ({ id: `${row}-${n}`, row, number: String(n) }));

const offer = (type: string, level: string, face: number, extra: Partial<PrimaryOffer> = {}) => ({
  offerId: `${type}.${level}`,
  ticketTypeId: type,
  priceLevelId: level,
  name: type,
  description: '',
  faceValue: eur(face),
  charges: [
    { reason: 'face value', type: 'face_value', amount: eur(face), feeType: 'per ticket' as const },
    { reason: 'service fee', type: 'service', amount: eur(150), feeType: 'per ticket' as const },
  ],
  protected: false,
  ...extra,
});

const chargesFor: PicksEvent['chargesFor'] = (price) => offer('X', 'X', price.amountMinor).charges;

const event: PicksEvent = {
  chargesFor,
  id: 'EV0000000000001',
  currency: 'EUR',
  secureEntryEnabled: true,
  ticketLimit: 8,
  priceLevels: [
    { id: 'PL-FLOOR', name: 'Floor' },
    { id: 'PL-BALCONY', name: 'Balcony' },
  ],
  offers: [
    offer('STANDARD', 'PL-FLOOR', 8000),
    offer('STANDARD', 'PL-BALCONY', 4000),
    offer('FANCLUB', 'PL-FLOOR', 6400, { protected: true }),
  ],
  areas: [
    {
      id: 'FLOOR-CENTRE',
      name: 'Floor centre',
      description: '',
      section: 'CENTRE',
      priceLevelId: 'PL-FLOOR',
      generalAdmission: false,
      available: 5,
      seats: [...seats('A', [1, 3, 5]), ...seats('B', [7, 8])],
    },
    {
      id: 'FLOOR-LEFT',
      name: 'Floor left',
      description: '',
      section: 'LEFT',
      priceLevelId: 'PL-FLOOR',
      generalAdmission: false,
      available: 4,
      seats: [...seats('A', [1, 2]), ...seats('C', [4, 5])],
    },
    {
      id: 'BALCONY-CENTRE',
      name: 'Balcony centre',
      description: '',
      section: 'CENTRE',
      priceLevelId: 'PL-BALCONY',
      generalAdmission: false,
      available: 30,
    },
    {
      id: 'GA',
      name: 'Standing',
      description: '',
      section: 'STANDING',
      priceLevelId: 'PL-BALCONY',
      generalAdmission: true,
      available: 1,
    },
  ],
};

const query = (over: Partial<PicksQuery> = {}): PicksQuery => ({
  quantity: 2,
  priceLevelIds: [],
  areaIds: [],
  sections: [],
  includeResale: false,
  ...over,
});

const listing = (over: Partial<ResaleListing> = {}): ResaleListing => ({
  id: 'EV0000000000001.AAAAAAAAAAAAAAAAAAAAAA',
  eventId: 'EV0000000000001',
  orderId: 'o-1',
  ticketIds: ['t1', 't2'],
  price: eur(3000),
  faceValue: eur(8000),
  areaId: 'FLOOR-CENTRE',
  section: 'CENTRE',
  row: 'A',
  seats: ['9', '10'],
  generalAdmission: false,
  priceLevelId: 'PL-FLOOR',
  priceTypeId: 'STANDARD',
  sellerAppId: 'seller',
  sellerNotes: '',
  state: 'LISTED',
  createdAt: now,
  updatedAt: now,
  ...over,
});

describe('adjacent seats', () => {
  it('finds blocks of consecutive seat numbers, front row first', () => {
    const blocks = adjacentBlocks([...seats('B', [7, 8, 9]), ...seats('A', [1, 3, 5])], 2);
    expect(blocks.map((b) => [b.row, b.seats.map((s) => s.number)])).toEqual([
      ['B', ['7', '8']],
      ['B', ['8', '9']],
    ]);
  });

  it('finds none when no seats are next to each other', () => {
    expect(adjacentBlocks(seats('A', [1, 3, 5, 7]), 2)).toEqual([]);
    expect(adjacentBlocks(seats('A', [1, 2]), 3)).toEqual([]);
  });

  it('treats neighbours in the natural order as adjacent for labels that are not numbers', () => {
    const labelled = ['1A', '1B', '1C'].map((n) => ({ id: n, row: 'AA', number: n }));
    expect(adjacentBlocks(labelled, 3)).toHaveLength(1);
  });

  it('orders rows naturally', () => {
    expect(sortRows(['B', 'AA', 'A', '10', '2'])).toEqual(['2', '10', 'A', 'AA', 'B']);
  });
});

describe('quality', () => {
  it('scores the cheapest price 1 and the dearest 0', () => {
    expect(priceScore(100, { min: 100, max: 200 })).toBe(1);
    expect(priceScore(200, { min: 100, max: 200 })).toBe(0);
    expect(priceScore(150, { min: 100, max: 200 })).toBe(0.5);
    expect(priceScore(150, { min: 150, max: 150 })).toBe(1);
  });

  it('ranks the dearest price level closest to the stage', () => {
    const scores = levelScores(event);
    expect(scores.get('PL-FLOOR')).toBe(1);
    expect(scores.get('PL-BALCONY')).toBe(0);
  });

  it('is half price and half proximity, within [0, 1]', () => {
    const range = { min: 0, max: 100 };
    expect(quality({ price: 0, levelScore: 1, rowScore: 1 }, range)).toBe(1);
    expect(quality({ price: 100, levelScore: 0, rowScore: 0 }, range)).toBe(0);
    expect(quality({ price: 50, levelScore: 1, rowScore: 0 }, range)).toBe(0.55);
  });
});

describe('buildPicks', () => {
  it('gives one pick per area that can seat the quantity together, best first', () => {
    const picks = buildPicks(event, [], query(), now);
    // Balcony: cheapest (price 1) at the far level (0), row unknown: 0.5 + 0.5 × (0.4 × 0.5) = 0.6.
    // Floor left: dearest (0), near level (1), two together in row A (front): 0.5 × 1 = 0.5.
    // Floor centre: two together only in row B, its back row: 0.5 × 0.6 = 0.3.
    expect(picks.map((p) => [p.area.id, p.quality])).toEqual([
      ['BALCONY-CENTRE', 0.6],
      ['FLOOR-LEFT', 0.5],
      ['FLOOR-CENTRE', 0.3],
    ]);
    const [balcony, left] = picks;
    expect(balcony!.type).toBe('seats');
    // Primary picks never show row or seats (assigned at reserve during the onsale).
    expect(picks.every((p) => p.row === undefined && p.seats === undefined)).toBe(true);
    expect(left!.offerIds).toEqual(['STANDARD.PL-FLOOR']);
    expect(picks.every((p) => p.quality >= 0 && p.quality <= 1)).toBe(true);
    // The standing area has 1 place: not enough for 2.
    expect(picks.some((p) => p.area.id === 'GA')).toBe(false);
  });

  it('shows general admission as general-seating', () => {
    const picks = buildPicks(event, [], query({ quantity: 1 }), now);
    expect(picks.find((p) => p.area.id === 'GA')!.type).toBe('general-seating');
    expect(picks.find((p) => p.area.id === 'GA')!.section).toBe('');
  });

  it('filters by area, section, price level, price and ticket type', () => {
    const ids = (q: Partial<PicksQuery>) =>
      buildPicks(event, [], query(q), now).map((p) => p.area.id);
    expect(ids({ areaIds: ['BALCONY-CENTRE'] })).toEqual(['BALCONY-CENTRE']);
    expect(ids({ sections: ['centre'] }).sort()).toEqual(['BALCONY-CENTRE', 'FLOOR-CENTRE']);
    expect(ids({ priceLevelIds: ['PL-FLOOR'] }).sort()).toEqual(['FLOOR-CENTRE', 'FLOOR-LEFT']);
    // Totals: floor 81.50, balcony 41.50.
    expect(ids({ priceMax: 5000 })).toEqual(['BALCONY-CENTRE']);
    expect(ids({ priceMin: 8150, priceMax: 8150 }).sort()).toEqual(['FLOOR-CENTRE', 'FLOOR-LEFT']);
    // A protected type shows only when asked for by id.
    expect(ids({ ticketTypeId: 'FANCLUB' }).sort()).toEqual(['FLOOR-CENTRE', 'FLOOR-LEFT']);
    expect(ids({ ticketTypeId: 'NOPE' })).toEqual([]);
  });

  it('keeps qualities the same whatever the filters', () => {
    const all = buildPicks(event, [], query(), now);
    const one = buildPicks(event, [], query({ areaIds: ['FLOOR-CENTRE'] }), now);
    expect(one[0]!.quality).toBe(all.find((p) => p.area.id === 'FLOOR-CENTRE')!.quality);
  });

  it('adds resale listings of the quantity with their row and seats when asked', () => {
    const resale = resaleOffers(
      [
        listing(),
        listing({ id: 'EV0000000000001.BBBBBBBBBBBBBBBBBBBBBB', ticketIds: ['t3', 't4', 't5'] }),
        listing({ id: 'EV0000000000001.CCCCCCCCCCCCCCCCCCCCCC', state: 'SOLD' }),
      ],
      { session: undefined, now, chargesFor },
    );
    expect(buildPicks(event, resale, query(), now).some((p) => p.selection === 'resale')).toBe(
      false,
    );
    const picks = buildPicks(event, resale, query({ includeResale: true }), now);
    const resold = picks.filter((p) => p.selection === 'resale');
    expect(resold).toHaveLength(1);
    expect(resold[0]).toMatchObject({
      type: 'seats',
      row: 'A',
      seats: ['9', '10'],
      offerIds: ['EV0000000000001.AAAAAAAAAAAAAAAAAAAAAA'],
      listingDetails: { location: 'Section CENTRE, Row A, Seats 9-10' },
    });
    // Cheapest and front row of the dearest level: the best pick.
    expect(picks[0]!.selection).toBe('resale');
  });

  it('counts a held listing whose hold ended as on sale', () => {
    const held = listing({
      state: 'HELD',
      holdCartId: 'c',
      holdExpiresAt: new Date(now.getTime() - 1),
    });
    const live = listing({
      state: 'HELD',
      holdCartId: 'c',
      holdExpiresAt: new Date(now.getTime() + 1),
    });
    expect(resaleOffers([held], { session: undefined, now, chargesFor })).toHaveLength(1);
    expect(resaleOffers([live], { session: undefined, now, chargesFor })).toHaveLength(0);
  });
});

describe('paging', () => {
  const items = Array.from({ length: 25 }, (_, i) => i);
  it('pages from 1', () => {
    expect(paginate(items, 1, 10)).toEqual({
      items: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      page: 1,
      size: 10,
      totalElements: 25,
      totalPages: 3,
    });
    expect(paginate(items, 3, 10).items).toEqual([20, 21, 22, 23, 24]);
    expect(paginate(items, 4, 10).items).toEqual([]);
    expect(paginate([], 1, 10).totalPages).toBe(0);
  });
});
