import { haversineKm, milesToKm } from '@marquee/geo';
import type { Deal, Exclusivity } from './deal.js';
import { DealsError, exclusivities } from './deal.js';
import type { DealEvent } from './deal-event.js';
import { markets } from './markets.js';

/** Deals search: `rows` default 25, maximum 500. */
export const DEFAULT_ROWS = 25;
export const MAX_ROWS = 500;
/** `radius` default 10, `radiusUnit` default kilometers. */
export const DEFAULT_RADIUS = 10;

export type RadiusUnit = 'kilometers' | 'miles';

/** The parameters of a deals search after the API defaults (the deals API). */
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

/** Checks what the API would answer with 406; returns the criteria unchanged. */
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

const interned = new Map<string, string>();

/**
 * One shared string per distinct value (countries, cities, states are few): comparisons then touch
 * one hot string instead of a copy per event scattered over the heap.
 */
function intern(value: string): string {
  let shared = interned.get(value);
  if (shared === undefined) interned.set(value, (shared = value));
  return shared;
}

/**
 * What the filters read of one event, in one fixed shape: events arrive in many shapes (optional
 * fields present or not, objects built by spreads), and a hot loop over thousands of them must not
 * pay for megamorphic property lookups. Absent numbers are NaN, which fails every comparison.
 */
export class SearchKey {
  readonly id: string;
  readonly deleted: boolean;
  readonly active: boolean;
  readonly test: boolean;
  readonly startMs: number;
  readonly visibleFromMs: number;
  readonly visibleUntilMs: number;
  readonly country: string;
  readonly cities: readonly string[];
  readonly states: readonly string[];
  readonly marketIds: readonly number[];
  readonly latitude: number;
  readonly longitude: number;
  readonly venueNumber: number;
  readonly majorGenres: readonly number[];
  readonly minorGenres: readonly number[];
  readonly attractions: readonly number[];

  constructor(readonly event: DealEvent) {
    this.id = event.id;
    this.deleted = event.deleted;
    this.active = event.active;
    this.test = event.test;
    this.startMs = event.startAt?.getTime() ?? Number.NaN;
    this.visibleFromMs = event.visibleFrom?.getTime() ?? Number.NaN;
    this.visibleUntilMs = event.visibleUntil?.getTime() ?? Number.NaN;
    this.country = intern(event.country ?? '');
    this.cities = event.cities.map(intern);
    this.states = event.states.map(intern);
    this.marketIds = [...event.marketIds];
    this.latitude = event.venue?.latitude ?? Number.NaN;
    this.longitude = event.venue?.longitude ?? Number.NaN;
    this.venueNumber = event.venue?.number ?? Number.NaN;
    this.majorGenres = event.majorGenres.map((g) => g.number);
    this.minorGenres = event.minorGenres.map((g) => g.number);
    this.attractions = event.attractions.map((a) => a.number);
  }
}

/**
 * A predicate for the event-level filters of `criteria` (everything but exclusivities and the
 * deal id, which look at the deals). Prepared once per search so the loop over events stays cheap.
 */
export function eventMatcher(
  criteria: DealSearchCriteria,
  now: Date,
): (event: SearchKey) => boolean {
  const nowMs = now.getTime();
  const qa = criteria.qa;
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
  const radiusKm = near ? (near.unit === 'miles' ? milesToKm(near.radius) : near.radius) : 0;
  const start = criteria.timeRangeStart?.getTime();
  const end = criteria.timeRangeEnd?.getTime();
  const { majorGenreId, minorGenreId, venueId, attractionId } = criteria;
  return (key) => {
    if (key.deleted || !key.active || key.test !== qa) return false;
    // Public visibility window (NaN bounds are open).
    if (nowMs < key.visibleFromMs || nowMs >= key.visibleUntilMs) return false;
    // An event whose country is not known (a venue reference without markets) is not excluded by
    // the country filter: the default `US` would otherwise hide it from every search (README).
    if (country && key.country !== '' && key.country !== country) return false;
    if (city && !key.cities.includes(city)) return false;
    if (state && !key.states.includes(state)) return false;
    if (marketIds.size > 0 && !wholeCountries.has(key.country)) {
      let inMarket = false;
      for (const id of key.marketIds) if (marketIds.has(id)) inMarket = true;
      if (!inMarket) return false;
    }
    if (near) {
      if (Number.isNaN(key.latitude) || Number.isNaN(key.longitude)) return false;
      // The key's own numbers: no point object per event on this loop.
      const d = haversineKm(near.latitude, near.longitude, key.latitude, key.longitude);
      if (d > radiusKm) return false;
    }
    if (majorGenreId !== undefined && !key.majorGenres.includes(majorGenreId)) return false;
    if (minorGenreId !== undefined && !key.minorGenres.includes(minorGenreId)) return false;
    if (venueId !== undefined && key.venueNumber !== venueId) return false;
    if (attractionId !== undefined && !key.attractions.includes(attractionId)) return false;
    if (start !== undefined || end !== undefined) {
      if (Number.isNaN(key.startMs)) return false;
      // timeRangeStart: events starting at or after it; timeRangeEnd: events starting before it.
      if (start !== undefined && key.startMs < start) return false;
      if (end !== undefined && key.startMs >= end) return false;
    }
    return true;
  };
}

/** Result order: by event start (undated last), then event id, so pages are stable. */
export function compareKeys(a: SearchKey, b: SearchKey): number {
  const ta = Number.isNaN(a.startMs) ? Number.POSITIVE_INFINITY : a.startMs;
  const tb = Number.isNaN(b.startMs) ? Number.POSITIVE_INFINITY : b.startMs;
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
