import type { Deal, Exclusivity } from './deal.js';
import { DealsError, exclusivities } from './deal.js';
import type { DealEvent } from './deal-event.js';
import { isShown } from './deal-event.js';
import { markets } from './markets.js';

/** spec 01 deals search: `rows` default 25, maximum 500. */
export const DEFAULT_ROWS = 25;
export const MAX_ROWS = 500;
/** spec 01: `radius` default 10, `radiusUnit` default kilometers. */
export const DEFAULT_RADIUS = 10;

export type RadiusUnit = 'kilometers' | 'miles';

/** The parameters of a deals search after the API defaults (spec 01 §Deals service). */
export interface DealSearchCriteria {
  /** `/deals/{deal}/events`: only events carrying this deal. */
  dealId?: string;
  /** Non-empty; default both. */
  exclusivities: readonly Exclusivity[];
  /** OR; empty = no market filter. */
  marketIds: readonly number[];
  /** ISO country code; empty or absent = no country filter. */
  country?: string;
  city?: string;
  state?: string;
  near?: { latitude: number; longitude: number; radius: number; unit: RadiusUnit };
  majorGenreId?: number;
  minorGenreId?: number;
  venueId?: number;
  attractionId?: number;
  /** Inclusive. */
  timeRangeStart?: Date;
  /** Exclusive. */
  timeRangeEnd?: Date;
  startRow: number;
  rows: number;
  /** The QA data set (events with `test = true`) instead of production. */
  qa: boolean;
}

/** One event of a search result with the deals that made it match. */
export interface DealSearchHit {
  event: DealEvent;
  deals: Deal[];
}

export interface DealSearchResult {
  hits: DealSearchHit[];
  totalHits: number;
  startRow: number;
  rows: number;
}

const bad = (message: string) => new DealsError('invalid_argument', message);

/** Checks what the API would answer with 406 (spec 01 §Errors); returns the criteria unchanged. */
export function validateCriteria(criteria: DealSearchCriteria): DealSearchCriteria {
  if (!Number.isInteger(criteria.rows) || criteria.rows < 1 || criteria.rows > MAX_ROWS)
    throw bad(`rows must be an integer from 1 to ${MAX_ROWS}`);
  if (!Number.isInteger(criteria.startRow) || criteria.startRow < 0)
    throw bad('startRow must be a non-negative integer');
  if (criteria.exclusivities.length === 0) throw bad('exclusivities must not be empty');
  for (const e of criteria.exclusivities)
    if (!exclusivities.includes(e)) throw bad(`unknown exclusivity ${String(e)}`);
  for (const id of criteria.marketIds)
    if (!markets.has(id)) throw bad(`marketIds: ${id} is not a market id`);
  const near = criteria.near;
  if (near) {
    if (!(near.latitude >= -90 && near.latitude <= 90))
      throw bad('latitude must be between -90 and 90');
    if (!(near.longitude >= -180 && near.longitude <= 180))
      throw bad('longitude must be between -180 and 180');
    if (!(near.radius > 0 && Number.isFinite(near.radius)))
      throw bad('radius must be a positive number');
  }
  for (const [name, id] of [
    ['majorGenreId', criteria.majorGenreId],
    ['minorGenreId', criteria.minorGenreId],
    ['venueId', criteria.venueId],
    ['attractionId', criteria.attractionId],
  ] as const) {
    if (id !== undefined && !(Number.isSafeInteger(id) && id > 0))
      throw bad(`${name} must be a positive integer`);
  }
  if (
    criteria.timeRangeStart &&
    criteria.timeRangeEnd &&
    criteria.timeRangeStart > criteria.timeRangeEnd
  )
    throw bad('timeRangeStart must not be after timeRangeEnd');
  return criteria;
}

const EARTH_RADIUS_KM = 6371.0088;
const KM_PER_MILE = 1.609344;

/** Great-circle distance in kilometres (haversine). */
export function distanceKm(
  a: { latitude: number; longitude: number },
  b: { latitude: number; longitude: number },
): number {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLon = (b.longitude - a.longitude) * rad;
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * A predicate for the event-level filters of `criteria` (everything but exclusivities and the
 * deal id, which look at the deals). Prepared once per search so the loop over events stays cheap.
 */
export function eventMatcher(
  criteria: DealSearchCriteria,
  now: Date,
): (event: DealEvent) => boolean {
  const country = criteria.country?.trim().toUpperCase() || undefined;
  const city = criteria.city?.trim().toLowerCase() || undefined;
  const state = criteria.state?.trim().toLowerCase() || undefined;
  const marketIds = new Set(criteria.marketIds);
  const wholeCountries = new Set(
    criteria.marketIds
      .map((id) => markets.get(id))
      .filter((m) => m?.wholeCountry)
      .map((m) => m!.country),
  );
  const near = criteria.near;
  const radiusKm = near ? near.radius * (near.unit === 'miles' ? KM_PER_MILE : 1) : 0;
  const start = criteria.timeRangeStart?.getTime();
  const end = criteria.timeRangeEnd?.getTime();
  return (event) => {
    if (!isShown(event, now) || event.test !== criteria.qa) return false;
    // An event whose country is not known (a venue reference without markets) is not excluded by
    // the country filter: the default `US` would otherwise hide it from every search (README).
    if (country && event.country !== undefined && event.country !== country) return false;
    if (city && !event.cities.includes(city)) return false;
    if (state && !event.states.includes(state)) return false;
    if (
      marketIds.size > 0 &&
      !event.marketIds.some((id) => marketIds.has(id)) &&
      !(event.country !== undefined && wholeCountries.has(event.country))
    )
      return false;
    if (near) {
      const venue = event.venue;
      if (venue?.latitude === undefined || venue.longitude === undefined) return false;
      const d = distanceKm(near, { latitude: venue.latitude, longitude: venue.longitude });
      if (d > radiusKm) return false;
    }
    if (
      criteria.majorGenreId !== undefined &&
      !event.majorGenres.some((g) => g.number === criteria.majorGenreId)
    )
      return false;
    if (
      criteria.minorGenreId !== undefined &&
      !event.minorGenres.some((g) => g.number === criteria.minorGenreId)
    )
      return false;
    if (criteria.venueId !== undefined && event.venue?.number !== criteria.venueId) return false;
    if (
      criteria.attractionId !== undefined &&
      !event.attractions.some((a) => a.number === criteria.attractionId)
    )
      return false;
    if (start !== undefined || end !== undefined) {
      const at = event.startAt?.getTime();
      if (at === undefined) return false;
      // spec 01: timeRangeStart "events starting at or after", timeRangeEnd "events starting before".
      if (start !== undefined && at < start) return false;
      if (end !== undefined && at >= end) return false;
    }
    return true;
  };
}

/** Result order: by event start (undated last), then event id, so pages are stable. */
export function compareEvents(a: DealEvent, b: DealEvent): number {
  const ta = a.startAt?.getTime() ?? Number.POSITIVE_INFINITY;
  const tb = b.startAt?.getTime() ?? Number.POSITIVE_INFINITY;
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
