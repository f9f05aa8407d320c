import { fold, normalizedPhrase, words } from '../text.js';
import {
  FLAG_HIDDEN,
  FLAG_SOLD_OUT,
  FLAG_TBA,
  FLAG_TBD,
  FLAG_TEST,
  type PostingIndex,
} from './column-store.js';
import {
  checkPage,
  InvalidQueryError,
  MAX_EVENT_PAGE_SIZE,
  radiusKm,
  type EventOrder,
  type EventQuery,
  type EventSort,
  type Inclusion,
  type TimeSpan,
} from './query.js';

/**
 * The query planner: turns an event search into a plan, plain data the executors
 * (search/executors.ts) run against the column store. It reads nothing of the index, so a plan
 * depends on the query alone (and the tests read plans directly).
 *
 * A plan splits the filters by what answers them fastest:
 * - `lists`: filters an inverted index answers (words, venues, attractions, classifications,
 *   markets, event ids, cities); their posting lists are intersected into the candidates;
 * - `near`: the venues within a radius (the geo grid), whose posting lists are disjoint;
 * - `mask`: visibility and the TBA/TBD/test/sold-out inclusions, bits of the flags column;
 * - `start`: a start-date range, read from the starts column (or a slice of the date order);
 * - `filters`: the rest, checked on each remaining candidate's entry, in this order.
 */

/** A filter answered by posting lists: the union of the lists of `keys` in one index. */
export type ListFilter =
  | { kind: 'postings'; index: PostingIndex; keys: string[] }
  /** Events by id. */
  | { kind: 'events'; ids: string[] }
  /** Events at venues in these cities. */
  | { kind: 'cities'; cityIds: number[] };

/** A filter checked on a candidate's entry (the rarer ones: the hot path reads columns). */
export type EntryFilter =
  /** Normalized postal code of the venue. */
  | { kind: 'postal-code'; value: string }
  /** Normalized city name of the venue, in any locale. */
  | { kind: 'city'; value: string }
  /** Upper-case country codes of the venue. */
  | { kind: 'country'; codes: ReadonlySet<string> }
  | { kind: 'state'; codes: ReadonlySet<string> }
  /** Folded source names. */
  | { kind: 'source'; names: ReadonlySet<string> }
  | { kind: 'promoter'; ids: ReadonlySet<string> }
  /** A date column in `[from, to)` (events without the date fail). */
  | { kind: 'onsale' | 'offsale'; from: number; to: number }
  /** Price ranges overlapping a bound, with or without fees. */
  | { kind: 'min-price' | 'max-price'; value: number; withFees: boolean }
  | { kind: 'not-package' }
  | { kind: 'cancelled' | 'rescheduled'; inclusion: Inclusion }
  /** On-sale status (a seats-available search; the sold-out bit is in the mask). */
  | { kind: 'on-sale' }
  | { kind: 'not-external' };

/**
 * How the executors find the page:
 * - `candidates`: index filters or a radius narrowed the search: check each candidate, then pick
 *   the page by rank in the prebuilt order (or by relevance, then rank);
 * - `date-slice`: no index filter, a start-date range and an order other than by date: the range
 *   is a contiguous slice of the date order, whose events are the candidates;
 * - `distance`: sorted by distance from `near`'s center: check each candidate, keep the nearest
 *   (or farthest) page;
 * - `walk`: nothing narrowed it: walk the prebuilt order, count every match, keep one page.
 */
export type Strategy = 'candidates' | 'date-slice' | 'distance' | 'walk';

export interface EventSearchPlan {
  offset: number;
  limit: number;
  /** All must hold: the candidates are the intersection of these lists (and of `near`). */
  lists: ListFilter[];
  /** The venues within `km` of `center`. */
  near: { center: { latitude: number; longitude: number }; km: number } | undefined;
  /** A document passes with every `required` bit of the flags column and no `refused` one. */
  mask: { required: number; refused: number };
  /** Start date-time in `[from, to)`, as epoch milliseconds (events without one fail). */
  start: { from: number; to: number } | undefined;
  filters: EntryFilter[];
  /** The prebuilt order pages follow; relevance and distance break their ties by it. */
  order: EventOrder;
  /** Fewest name words first, then `order` (a keyword search without a sort). */
  relevance: boolean;
  /** By distance from `near`'s center: 1 nearest first, -1 farthest first. */
  distance: 1 | -1 | undefined;
  strategy: Strategy;
}

/** Plans an event search; throws InvalidQueryError for a query the catalog refuses. */
export function planEventSearch(q: EventQuery): EventSearchPlan {
  const { offset, limit } = checkPage(q.page, MAX_EVENT_PAGE_SIZE);
  const keywordWords = [...new Set(words(q.keyword))];
  const lists = listFilters(q, keywordWords);
  const near = q.near && { center: q.near.center, km: radiusKm(q.near) };
  const filters = entryFilters(q);
  const mask = flagMask(q);
  const start = span(q.start);
  const distance =
    q.sort === 'distance-asc' ? 1 : q.sort === 'distance-desc' ? -1 : (undefined as undefined);
  if (distance !== undefined && !near)
    throw new InvalidQueryError('sorting by distance needs latlong');
  const order = orderOf(q.sort);
  const dateSorted = distance === undefined && (order === 'date-asc' || order === 'date-desc');
  const strategy: Strategy =
    distance !== undefined
      ? 'distance'
      : lists.length > 0 || near
        ? 'candidates'
        : start && !dateSorted
          ? 'date-slice'
          : 'walk';
  return {
    offset,
    limit,
    lists,
    near,
    mask,
    start,
    filters,
    order,
    relevance: q.sort === 'default' && keywordWords.length > 0,
    distance,
    strategy,
  };
}

/** The posting and id lists a candidate must be in, every one of them. */
function listFilters(q: EventQuery, keywordWords: readonly string[]): ListFilter[] {
  const lists: ListFilter[] = [];
  const postings = (index: PostingIndex, keys: string[]) =>
    lists.push({ kind: 'postings', index, keys });
  // Each keyword word is its own list: all of them must be in the name.
  for (const w of keywordWords) postings('word', [w]);
  if (q.attractionIds.length > 0) postings('attraction', q.attractionIds);
  if (q.venueIds.length > 0) postings('venue', q.venueIds);
  if (q.classificationIds.length > 0)
    postings(
      'classificationId',
      q.classificationIds.map((c) => c.toLowerCase()),
    );
  if (q.classificationNames.length > 0)
    postings('classificationName', q.classificationNames.map(normalizedPhrase));
  if (q.marketIds.length > 0)
    postings(
      'market',
      q.marketIds.map((m) => `m${m}`),
    );
  if (q.dmaId !== undefined) postings('market', [`d${q.dmaId}`]);
  if (q.eventIds.length > 0) lists.push({ kind: 'events', ids: q.eventIds });
  const anyWords = [...new Set(words(q.nameContains))];
  if (anyWords.length > 0) postings('word', anyWords);
  if (q.cityIds.length > 0) lists.push({ kind: 'cities', cityIds: q.cityIds });
  return lists;
}

/** The checks each candidate's entry must pass. */
function entryFilters(q: EventQuery): EntryFilter[] {
  const filters: EntryFilter[] = [];
  if (q.postalCode) filters.push({ kind: 'postal-code', value: normalizedPhrase(q.postalCode) });
  if (q.city) filters.push({ kind: 'city', value: normalizedPhrase(q.city) });
  if (q.countryCodes.length > 0)
    filters.push({ kind: 'country', codes: new Set(q.countryCodes.map((c) => c.toUpperCase())) });
  if (q.stateCodes.length > 0)
    filters.push({ kind: 'state', codes: new Set(q.stateCodes.map((c) => c.toUpperCase())) });
  if (q.sources.length > 0) filters.push({ kind: 'source', names: new Set(q.sources.map(fold)) });
  const onsale = span(q.onsale);
  if (onsale) filters.push({ kind: 'onsale', ...onsale });
  const offsale = span(q.offsale);
  if (offsale) filters.push({ kind: 'offsale', ...offsale });
  if (q.promoterIds.length > 0) filters.push({ kind: 'promoter', ids: new Set(q.promoterIds) });
  // A price bound keeps events whose range overlaps it; events without prices fail it.
  const withFees = !q.priceExclFees;
  if (q.minPrice > 0) filters.push({ kind: 'min-price', value: q.minPrice, withFees });
  if (q.maxPrice > 0) filters.push({ kind: 'max-price', value: q.maxPrice, withFees });
  if (q.excludePackages) filters.push({ kind: 'not-package' });
  if (q.includeCancelled !== undefined)
    filters.push({ kind: 'cancelled', inclusion: q.includeCancelled });
  if (q.includeRescheduled !== undefined)
    filters.push({ kind: 'rescheduled', inclusion: q.includeRescheduled });
  if (q.seatsAvailable) filters.push({ kind: 'on-sale' });
  if (q.excludeExternal) filters.push({ kind: 'not-external' });
  return filters;
}

/**
 * Visibility and the inclusion flags as bit masks over the flags column (the same rule as
 * isPubliclyVisible and inclusionAccepts).
 */
function flagMask(q: EventQuery): { required: number; refused: number } {
  let required = 0;
  let refused = FLAG_HIDDEN;
  const inclusions = [
    [q.includeTba, FLAG_TBA],
    [q.includeTbd, FLAG_TBD],
    [q.includeTest, FLAG_TEST],
  ] as const;
  for (const [inclusion, bit] of inclusions) {
    if (inclusion === 'only') required |= bit;
    else if (inclusion !== 'yes') refused |= bit;
  }
  // Tickets on sale now: on-sale status (a filter) and not known to be sold out (a bit).
  if (q.seatsAvailable) refused |= FLAG_SOLD_OUT;
  return { required, refused };
}

/** The default and distance sorts break ties (and relevance ties) by date, as the date order does. */
function orderOf(sort: EventSort): EventOrder {
  switch (sort) {
    case 'default':
    case 'distance-asc':
    case 'distance-desc':
      return 'date-asc';
    default:
      return sort;
  }
}

/** A time span as epoch milliseconds, undefined when it bounds nothing. */
function span(value: TimeSpan): { from: number; to: number } | undefined {
  if (!value.from && !value.to) return undefined;
  return { from: value.from?.getTime() ?? -Infinity, to: value.to?.getTime() ?? Infinity };
}
