import type { FanSession } from './fan-session.js';
import { priceForFan } from './fan-session.js';
import { effectiveState, type ResaleListing } from './listing.js';
import type { Money } from '@marquee/platform/money';

/** A charge of an offer (`_embedded.offer[].charges[]`). */
export interface OfferCharge {
  reason: string;
  type: string;
  amount: Money;
  feeType: 'per ticket' | 'per order';
}

/** A primary offer: one price type at one price level (the commerce offer of that pair). */
export interface PrimaryOffer {
  offerId: string;
  ticketTypeId: string;
  priceLevelId: string;
  name: string;
  description: string;
  faceValue: Money;
  charges: OfferCharge[];
  /** The price type needs a password (access code). */
  protected: boolean;
}

export interface AreaSeat {
  id: string;
  row: string;
  number: string;
}

/** An area of the event's manifest with what is known of its availability. */
export interface PicksArea {
  id: string;
  name: string;
  description: string;
  /** Section label shown to fans (the partner's section id when no label is known). */
  section: string;
  priceLevelId: string;
  generalAdmission: boolean;
  available: number;
  /** Available seats of a reserved-seat area; `undefined` when only counts are known. */
  seats?: AreaSeat[];
}

/** What top picks needs of an event (read from the cart's event projection and live availability). */
export interface PicksEvent {
  id: string;
  currency: string;
  secureEntryEnabled: boolean;
  /** Tickets per transaction at most; 0 = none given. */
  ticketLimit: number;
  priceLevels: { id: string; name: string }[];
  offers: PrimaryOffer[];
  /**
   * The charges a cart makes for one ticket at this face value or resale price (the face value
   * itself, the per-ticket fees and the per-order ones): the cart's pricing, so a total shown is
   * the total a reserve charges.
   */
  chargesFor(price: Money): OfferCharge[];
  areas: PicksArea[];
  seatmapUrl?: string;
  importantInformation?: string;
}

export interface PicksQuery {
  quantity: number;
  ticketTypeId?: string;
  priceLevelIds: readonly string[];
  areaIds: readonly string[];
  sections: readonly string[];
  /** Per-ticket total price bounds in minor units of the event's currency. */
  priceMin?: number;
  priceMax?: number;
  includeResale: boolean;
}

export type PickType = 'seats' | 'general-seating';

export interface Pick {
  /** Stable identity of the pick (area id, or listing id): the last tie-break of the order. */
  key: string;
  type: PickType;
  quality: number;
  area: { id: string; name: string; description: string };
  descriptions: string[];
  section: string;
  selection: 'standard' | 'resale';
  /** Only for resale picks: primary rows and seats are not shown during the onsale. */
  row?: string;
  seats?: string[];
  offerIds: string[];
  priceLevelId: string;
  listingDetails?: { location: string; estimatedDelivery: Date };
  /** Lowest per-ticket total price of the pick's offers (sort tie-break, price score). */
  unitPrice: number;
}

/** The resale offer of a listing as shown under the fan session. */
export interface ResaleOffer {
  listing: ResaleListing;
  /** The listing's price per ticket for this fan (`priceForFan`): the face value the cart holds. */
  price: Money;
  /** What a cart charges for one of its tickets (`PicksEvent.chargesFor`). */
  charges: OfferCharge[];
  /** Per-ticket total: the price and the per-ticket fees. */
  total: Money;
}

export const DEFAULT_QUANTITY = 2;
export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 30;

/** Weights of the quality heuristic (see the cart README, "Top picks and resale"). */
export const QUALITY_WEIGHTS = { price: 0.5, proximity: 0.5 } as const;
export const PROXIMITY_WEIGHTS = { level: 0.6, row: 0.4 } as const;
/** Row score when the row is unknown or there are no rows (general admission, counts only). */
export const UNKNOWN_ROW_SCORE = 0.5;

const natural = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Row labels front to back: natural order (A < B < … < AA, 1 < 2 < 10). */
export const sortRows = (rows: Iterable<string>): string[] =>
  [...new Set(rows)].sort((a, b) => natural.compare(a, b));

/** Per-ticket total of a face value (or resale price) and its charges. */
export const perTicketTotal = (price: Money, charges: readonly OfferCharge[]): number =>
  price.amountMinor +
  charges
    .filter((c) => c.feeType === 'per ticket' && c.type !== 'face_value')
    .reduce((sum, c) => sum + c.amount.amountMinor, 0);

/** Per-ticket total: face value plus per-ticket charges. */
export const offerTotal = (offer: PrimaryOffer): number =>
  perTicketTotal(offer.faceValue, offer.charges);

/**
 * Blocks of `quantity` adjacent available seats, row by row, front row first. Seats are adjacent when
 * their numbers follow each other (12, 13) or, for labels that are not numbers, when they are
 * neighbours in the row's natural order. In each row the blocks slide one seat at a time.
 */
export function adjacentBlocks(
  seats: readonly AreaSeat[],
  quantity: number,
): { row: string; seats: AreaSeat[] }[] {
  const byRow = new Map<string, AreaSeat[]>();
  for (const seat of seats) {
    const row = byRow.get(seat.row) ?? [];
    row.push(seat);
    byRow.set(seat.row, row);
  }
  const blocks: { row: string; seats: AreaSeat[] }[] = [];
  for (const row of sortRows(byRow.keys())) {
    const inRow = [...(byRow.get(row) ?? [])].sort((a, b) => natural.compare(a.number, b.number));
    const numeric = inRow.every((s) => /^\d+$/.test(s.number));
    let run: AreaSeat[] = [];
    for (const seat of inRow) {
      const previous = run[run.length - 1];
      const follows =
        previous === undefined || !numeric || Number(seat.number) === Number(previous.number) + 1;
      run = follows ? [...run, seat] : [seat];
      if (run.length >= quantity) blocks.push({ row, seats: run.slice(run.length - quantity) });
    }
  }
  return blocks;
}

/** 1 for the first of `n` ranks (front, cheapest), 0 for the last; 1 when there is only one. */
const rankScore = (index: number, n: number): number => (n <= 1 ? 1 : 1 - index / (n - 1));

/**
 * Stage proximity of the price levels: a venue prices its places by how good they are, so the level
 * whose regular face value is highest is taken as the closest (score 1) and the cheapest as the
 * farthest (0). Levels without a price score 0.5.
 */
export function levelScores(event: PicksEvent): Map<string, number> {
  const top = new Map<string, number>();
  for (const offer of event.offers) {
    if (offer.protected) continue;
    top.set(
      offer.priceLevelId,
      Math.max(top.get(offer.priceLevelId) ?? 0, offer.faceValue.amountMinor),
    );
  }
  const distinct = [...new Set(top.values())].sort((a, b) => b - a);
  const scores = new Map<string, number>();
  for (const [level, value] of top)
    scores.set(level, rankScore(distinct.indexOf(value), distinct.length));
  return scores;
}

/** Price score: 1 for the cheapest price of the event, 0 for the dearest (linear in between). */
export const priceScore = (price: number, range: { min: number; max: number }): number =>
  range.max <= range.min
    ? 1
    : Math.min(1, Math.max(0, (range.max - price) / (range.max - range.min)));

/** Quality in [0, 1], rounded to 4 decimals: half price, half stage proximity. */
export function quality(
  input: { price: number; levelScore: number; rowScore: number },
  range: {
    min: number;
    max: number;
  },
): number {
  const proximity =
    PROXIMITY_WEIGHTS.level * input.levelScore + PROXIMITY_WEIGHTS.row * input.rowScore;
  const value =
    QUALITY_WEIGHTS.price * priceScore(input.price, range) + QUALITY_WEIGHTS.proximity * proximity;
  return Math.round(value * 10_000) / 10_000;
}

const matchesSection = (query: PicksQuery, area: PicksArea | undefined, section: string) =>
  query.sections.length === 0 ||
  query.sections.some((s) => s.toLowerCase() === section.toLowerCase() || (area && s === area.id));

const inPriceRange = (query: PicksQuery, price: number) =>
  (query.priceMin === undefined || price >= query.priceMin) &&
  (query.priceMax === undefined || price <= query.priceMax);

/** Offers a fan can take without a password, plus protected ones only when asked for by type id. */
function visibleOffers(event: PicksEvent, query: PicksQuery): PrimaryOffer[] {
  return event.offers.filter((o) =>
    query.ticketTypeId ? o.ticketTypeId === query.ticketTypeId : !o.protected,
  );
}

/** Active listings of the event as the fan sees them (sold whole: only those of `quantity` tickets). */
export function resaleOffers(
  listings: readonly ResaleListing[],
  context: {
    session: FanSession | undefined;
    now: Date;
    chargesFor: PicksEvent['chargesFor'];
  },
): ResaleOffer[] {
  return listings
    .filter((l) => effectiveState(l, context.now) === 'LISTED')
    .map((listing) => {
      const price = priceForFan(context.session, listing.id, listing.price, context.now);
      const charges = context.chargesFor(price);
      const total = { amountMinor: perTicketTotal(price, charges), currency: price.currency };
      return { listing, price, charges, total };
    });
}

export function listingLocation(listing: ResaleListing): string {
  if (listing.generalAdmission) return `General admission, ${listing.areaId}`;
  const seats = listing.seats;
  const span =
    seats.length === 0
      ? ''
      : seats.length === 1
        ? `, Seat ${seats[0]}`
        : `, Seats ${seats[0]}-${seats[seats.length - 1]}`;
  return `Section ${listing.section}, Row ${listing.row}${span}`;
}

/** What every pick of one query is scored against: the offers, level scores and price range. */
interface PicksContext {
  event: PicksEvent;
  query: PicksQuery;
  offers: PrimaryOffer[];
  levels: Map<string, number>;
  areasById: Map<string, PicksArea>;
  range: { min: number; max: number };
  now: Date;
}

/** The primary pick of one area, or `undefined` when the area does not fit the query. */
function primaryPick(area: PicksArea, ctx: PicksContext): Pick | undefined {
  const { event, query } = ctx;
  if (area.available < query.quantity) return undefined;
  if (query.areaIds.length > 0 && !query.areaIds.includes(area.id)) return undefined;
  if (query.priceLevelIds.length > 0 && !query.priceLevelIds.includes(area.priceLevelId))
    return undefined;
  if (!matchesSection(query, area, area.section)) return undefined;
  const areaOffers = ctx.offers.filter(
    (o) => o.priceLevelId === area.priceLevelId && inPriceRange(query, offerTotal(o)),
  );
  if (areaOffers.length === 0) return undefined;
  let rowScore = UNKNOWN_ROW_SCORE;
  if (!area.generalAdmission && area.seats !== undefined) {
    const blocks = adjacentBlocks(area.seats, query.quantity);
    if (blocks.length === 0) return undefined;
    const rows = sortRows(area.seats.map((s) => s.row));
    rowScore = rankScore(rows.indexOf(blocks[0]!.row), rows.length);
  }
  const unitPrice = Math.min(...areaOffers.map(offerTotal));
  const levelName = event.priceLevels.find((l) => l.id === area.priceLevelId)?.name;
  return {
    key: area.id,
    type: area.generalAdmission ? 'general-seating' : 'seats',
    quality: quality(
      { price: unitPrice, levelScore: ctx.levels.get(area.priceLevelId) ?? 0.5, rowScore },
      ctx.range,
    ),
    area: { id: area.id, name: area.name, description: area.description },
    descriptions: [area.name, ...(levelName && levelName !== area.name ? [levelName] : [])],
    section: area.generalAdmission ? '' : area.section,
    selection: 'standard',
    offerIds: areaOffers.map((o) => o.offerId),
    priceLevelId: area.priceLevelId,
    unitPrice,
  };
}

/** True when a resale listing fits the query (quantity, area, level, section, type, price). */
function listingFits({ listing, total }: ResaleOffer, ctx: PicksContext): boolean {
  const { query } = ctx;
  if (listing.ticketIds.length !== query.quantity) return false;
  if (query.areaIds.length > 0 && !query.areaIds.includes(listing.areaId)) return false;
  if (query.priceLevelIds.length > 0 && !query.priceLevelIds.includes(listing.priceLevelId))
    return false;
  if (!matchesSection(query, ctx.areasById.get(listing.areaId), listing.section)) return false;
  if (
    query.ticketTypeId &&
    query.ticketTypeId !== listing.priceTypeId &&
    query.ticketTypeId !== listing.id
  )
    return false;
  return inPriceRange(query, total.amountMinor);
}

/** The pick of one resale listing that fits the query, with its row and seats. */
function resalePick({ listing, total }: ResaleOffer, ctx: PicksContext): Pick {
  const area = ctx.areasById.get(listing.areaId);
  const rows = sortRows([...(area?.seats ?? []).map((s) => s.row), listing.row]);
  const rowScore = listing.generalAdmission
    ? UNKNOWN_ROW_SCORE
    : rankScore(rows.indexOf(listing.row), rows.length);
  const location = listingLocation(listing);
  return {
    key: listing.id,
    type: listing.generalAdmission ? 'general-seating' : 'seats',
    quality: quality(
      {
        price: total.amountMinor,
        levelScore: ctx.levels.get(listing.priceLevelId) ?? 0.5,
        rowScore,
      },
      ctx.range,
    ),
    area: {
      id: listing.areaId,
      name: area?.name ?? listing.areaId,
      description: area?.description ?? '',
    },
    descriptions: [location, 'Resale'],
    section: listing.generalAdmission ? '' : listing.section,
    selection: 'resale',
    ...(listing.generalAdmission ? {} : { row: listing.row, seats: [...listing.seats] }),
    offerIds: [listing.id],
    priceLevelId: listing.priceLevelId,
    listingDetails: { location, estimatedDelivery: ctx.now },
    unitPrice: total.amountMinor,
  };
}

/**
 * Every pick of the event for the query, best first (quality, then price, then area and key).
 * Primary inventory gives at most one pick per area: a general-admission area with `quantity` places,
 * or a reserved area with `quantity` adjacent available seats (its best row gives its proximity; when
 * only counts are known, `quantity` available seats and an unknown row). Row and seats of primary picks
 * are not shown (during the onsale seats are assigned at reserve). Each active resale listing of
 * `quantity` tickets is a pick with its row and seats. The price range of the price score spans every
 * visible offer and listing of the event, before filters, so a filter never changes a pick's quality.
 */
export function buildPicks(
  event: PicksEvent,
  resale: readonly ResaleOffer[],
  query: PicksQuery,
  now: Date,
): Pick[] {
  const offers = visibleOffers(event, query);
  const allPrices = [
    ...offers.map(offerTotal),
    ...(query.includeResale ? resale.map((r) => r.total.amountMinor) : []),
  ];
  const ctx: PicksContext = {
    event,
    query,
    offers,
    levels: levelScores(event),
    areasById: new Map(event.areas.map((a) => [a.id, a])),
    range: {
      min: allPrices.length ? Math.min(...allPrices) : 0,
      max: allPrices.length ? Math.max(...allPrices) : 0,
    },
    now,
  };
  const picks: Pick[] = [];
  for (const area of event.areas) {
    const pick = primaryPick(area, ctx);
    if (pick) picks.push(pick);
  }
  if (query.includeResale)
    for (const offer of resale) if (listingFits(offer, ctx)) picks.push(resalePick(offer, ctx));
  return picks.sort(
    (a, b) =>
      b.quality - a.quality ||
      a.unitPrice - b.unitPrice ||
      a.area.id.localeCompare(b.area.id) ||
      a.key.localeCompare(b.key),
  );
}

export interface PageOf<T> {
  items: T[];
  page: number;
  size: number;
  totalElements: number;
  totalPages: number;
}

/** Page `page` (from 1) of `size` items; a page past the end is empty. */
export function paginate<T>(items: readonly T[], page: number, size: number): PageOf<T> {
  const start = (page - 1) * size;
  return {
    items: items.slice(start, start + size),
    page,
    size,
    totalElements: items.length,
    totalPages: Math.ceil(items.length / size),
  };
}
