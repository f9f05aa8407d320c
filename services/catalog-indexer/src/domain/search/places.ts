import { distanceKm, type Point } from '@marquee/geo';
import { cityIds } from '../city-id.js';
import { GeoGrid } from '../geo-grid.js';
import type { Attraction, Venue } from '../model.js';
import { firstLocale, fold, localeValues, normalizedPhrase, pickText, words } from '../text.js';
import { byId, type EventColumnStore, type EventEntry } from './column-store.js';
import {
  checkPage,
  inclusionAccepts,
  radiusKm,
  type AttractionQuery,
  type NameSort,
  type Page,
  type SimilarAttractionsQuery,
  type VenueQuery,
} from './query.js';

/**
 * A venue's or attraction's encoding, or its document, as last made, with the upcoming-event count
 * it was made with: kept while that count holds (search/hits.ts).
 */
export interface CountedBytes {
  upcoming: number;
  bytes: Uint8Array;
}

export interface VenueEntry {
  venue: Venue;
  /** Its encoding (EventCodec.encodeVenue) with the count last asked for (replaced on change). */
  encoded: CountedBytes | undefined;
  /** Its document with the count last asked for (as `encoded`). */
  rendered: CountedBytes | undefined;
  /** Described by an inline place (full details), not only named by a reference. */
  described: boolean;
  events: Set<string>;
  nameWords: string[];
  /** The ids of the city's name in every locale (`cityIds`; a `city_ids` filter matches any). */
  cityIds: number[];
}

export interface AttractionEntry {
  attraction: Attraction;
  /** Its encoding (EventCodec.encodeAttraction) with the count last asked for (replaced on change). */
  encoded: CountedBytes | undefined;
  /** Its document with the count last asked for (as `encoded`). */
  rendered: CountedBytes | undefined;
  events: Set<string>;
  nameWords: string[];
}

const EMPTY: ReadonlySet<string> = new Set();

/**
 * The venues and attractions the indexed events name, with their own word indexes, venues on a geo
 * grid and by city, and each attraction's count of visible events (popularity). A venue or
 * attraction lives while an event names it. Answers the venue and attraction searches; their
 * upcoming-event counts come from the column store.
 */
export class Places {
  readonly venues = new Map<string, VenueEntry>();
  readonly attractions = new Map<string, AttractionEntry>();
  private readonly venueGrid = new GeoGrid();
  private readonly venueByWord = new Map<string, Set<string>>();
  /** Venue ids by city id (decimal string). */
  private readonly venueByCity = new Map<string, Set<string>>();
  /** Per attraction id, its active and not hidden events (popularity); shared with the entries. */
  private readonly attractionCounters = new Map<string, { events: number }>();
  private readonly attractionByWord = new Map<string, Set<string>>();

  constructor(private readonly store: EventColumnStore) {}

  /** The canonical id string of a venue (one copy, however many events name it). */
  venueId(id: string): string {
    return this.venues.get(id)!.venue.id;
  }

  attractionId(id: string): string {
    return this.attractions.get(id)!.attraction.id;
  }

  /** The event counter of an attraction, made on first use (the store counts visible events). */
  attractionCounter(id: string): { events: number } {
    let counter = this.attractionCounters.get(id);
    if (!counter) this.attractionCounters.set(id, (counter = { events: 0 }));
    return counter;
  }

  venueOf(e: EventEntry): Venue | undefined {
    return e.venueId ? this.venues.get(e.venueId)?.venue : undefined;
  }

  /** Calls `visit` with each venue within `km` of `center`. */
  venuesWithin(
    center: { latitude: number; longitude: number },
    km: number,
    visit: (venueId: string) => void,
  ): void {
    this.venueGrid.within(center, km, visit);
  }

  /** The ids of the venues in any of these cities. */
  venuesInCities(ids: readonly number[]): Set<string> {
    const out = new Set<string>();
    for (const id of ids)
      for (const venueId of this.venueByCity.get(String(id)) ?? EMPTY) out.add(venueId);
    return out;
  }

  /** What an inline place tells about a venue wins over a bare reference; the latest place wins. */
  mergeVenue(venue: Venue, described: boolean, eventId: string): void {
    const known = this.venues.get(venue.id);
    if (known && known.described && !described) {
      known.events.add(eventId);
      return;
    }
    const events = known?.events ?? new Set<string>();
    if (known) this.dropVenue(known);
    events.add(eventId);
    const entry: VenueEntry = {
      // The id string the index already holds, so events keep one copy of it.
      venue: known ? { ...venue, id: known.venue.id } : venue,
      encoded: undefined,
      rendered: undefined,
      described,
      events,
      nameWords: [...new Set(localeValues(venue.names).flatMap(words))],
      cityIds: cityIds(venue.country?.countryCode ?? '', venue.cityNames),
    };
    this.venues.set(venue.id, entry);
    for (const w of entry.nameWords) addTo(this.venueByWord, w, venue.id);
    for (const c of entry.cityIds) addTo(this.venueByCity, String(c), venue.id);
    const point = toPoint(venue.location);
    if (point) this.venueGrid.add(venue.id, point);
  }

  mergeAttraction(attraction: Attraction, eventId: string): void {
    const known = this.attractions.get(attraction.id);
    if (known) {
      for (const w of known.nameWords) removeFrom(this.attractionByWord, w, attraction.id);
    }
    const events = known?.events ?? new Set<string>();
    events.add(eventId);
    const names =
      localeValues(attraction.names).length > 0 ? attraction.names : known?.attraction.names;
    const entry: AttractionEntry = {
      // The id string the index already holds, so events keep one copy of it.
      attraction: { ...attraction, id: known?.attraction.id ?? attraction.id, names },
      encoded: undefined,
      rendered: undefined,
      events,
      nameWords: [...new Set(localeValues(names).flatMap(words))],
    };
    this.attractions.set(attraction.id, entry);
    for (const w of entry.nameWords) addTo(this.attractionByWord, w, attraction.id);
  }

  /** An event no longer names its venue and attractions: those it was the last event of go. */
  release(entry: EventEntry): void {
    if (entry.venueId) {
      const venue = this.venues.get(entry.venueId);
      venue?.events.delete(entry.id);
      if (venue && venue.events.size === 0) this.dropVenue(venue);
    }
    for (const attractionId of entry.attractionIds) {
      const attraction = this.attractions.get(attractionId);
      attraction?.events.delete(entry.id);
      if (attraction && attraction.events.size === 0) {
        this.attractions.delete(attractionId);
        this.attractionCounters.delete(attractionId);
        for (const w of attraction.nameWords) removeFrom(this.attractionByWord, w, attractionId);
      }
    }
  }

  private dropVenue(entry: VenueEntry): void {
    this.venues.delete(entry.venue.id);
    for (const w of entry.nameWords) removeFrom(this.venueByWord, w, entry.venue.id);
    for (const c of entry.cityIds) removeFrom(this.venueByCity, String(c), entry.venue.id);
    const point = toPoint(entry.venue.location);
    if (point) this.venueGrid.remove(entry.venue.id, point);
  }

  upcomingAtVenue(id: string, now: Date): number {
    return this.store.upcomingIn(this.store.postings.venue.get(id), now);
  }

  upcomingOfAttraction(id: string, now: Date): number {
    return this.store.upcomingIn(this.store.postings.attraction.get(id), now);
  }

  venueView(id: string, now: Date): Venue | undefined {
    const entry = this.venues.get(id);
    return entry && { ...entry.venue, upcomingEvents: this.upcomingAtVenue(id, now) };
  }

  attractionView(id: string, now: Date): Attraction | undefined {
    const entry = this.attractions.get(id);
    return entry && { ...entry.attraction, upcomingEvents: this.upcomingOfAttraction(id, now) };
  }

  private inCountries(eventIds: Iterable<string>, countries: ReadonlySet<string>): boolean {
    for (const id of eventIds) {
      const venueId = this.store.entries.get(id)?.venueId;
      const code = venueId
        ? this.venues.get(venueId)?.venue.country?.countryCode.toUpperCase()
        : '';
      if (code && countries.has(code)) return true;
    }
    return false;
  }

  /**
   * Attractions sharing genres or sub-genres with one attraction, most shared classifications first,
   * then most upcoming events (international `/attractions/{id}/similar`).
   */
  similarAttractions(
    id: string,
    options: SimilarAttractionsQuery,
    now: Date,
  ): Attraction[] | undefined {
    const self = this.attractions.get(id);
    if (!self) return undefined;
    const keysOf = (a: Attraction) =>
      new Set(
        a.classifications.flatMap((c) =>
          [c.genre?.id, c.subGenre?.id].filter((k): k is string => Boolean(k)),
        ),
      );
    const mine = keysOf(self.attraction);
    const countries = new Set(options.countryCodes.map((c) => c.toUpperCase()));
    const scored: { attraction: Attraction; shared: number }[] = [];
    for (const [otherId, other] of this.attractions) {
      if (otherId === id) continue;
      let shared = 0;
      for (const key of keysOf(other.attraction)) if (mine.has(key)) shared++;
      if (shared === 0) continue;
      if (countries.size > 0 && !this.inCountries(other.events, countries)) continue;
      const upcomingEvents = this.upcomingOfAttraction(otherId, now);
      if (options.hasEvents && upcomingEvents === 0) continue;
      scored.push({ attraction: { ...other.attraction, upcomingEvents }, shared });
    }
    scored.sort(
      (a, b) =>
        b.shared - a.shared ||
        b.attraction.upcomingEvents - a.attraction.upcomingEvents ||
        byId(a.attraction, b.attraction),
    );
    return scored.slice(0, options.limit).map((s) => s.attraction);
  }

  searchVenues(q: VenueQuery, now: Date, maxSize: number): Page<Venue> {
    const { offset, limit } = checkPage(q.page, maxSize);
    let ids: Iterable<string> = this.venues.keys();
    const keywordWords = [...new Set(words(q.keyword))];
    if (keywordWords.length > 0) {
      const sets = keywordWords
        .map((w) => this.venueByWord.get(w) ?? EMPTY)
        .sort((a, b) => a.size - b.size);
      ids = [...sets[0]!].filter((id) => sets.every((s) => s.has(id)));
    }
    const center = q.near?.center;
    const km = q.near ? radiusKm(q.near) : 0;
    const wantedIds = new Set(q.ids);
    const countries = new Set(q.countryCodes.map((c) => c.toUpperCase()));
    const states = new Set(q.stateCodes.map((c) => c.toUpperCase()));
    const markets = new Set(q.marketIds);
    const wantedCities = new Set(q.cityIds);
    const nameAny = q.nameAny.map(normalizedPhrase).filter((n) => n !== '');
    const found: Venue[] = [];
    for (const id of ids) {
      const entry = this.venues.get(id)!;
      const v = entry.venue;
      if (wantedIds.size > 0 && !wantedIds.has(id)) continue;
      if (countries.size > 0 && !countries.has(v.country?.countryCode.toUpperCase() ?? ''))
        continue;
      if (states.size > 0 && !states.has(v.state?.stateCode.toUpperCase() ?? '')) continue;
      if (
        q.city &&
        !localeValues(v.cityNames).some((c) => normalizedPhrase(c) === normalizedPhrase(q.city))
      )
        continue;
      if (q.postalCode && normalizedPhrase(v.postalCode) !== normalizedPhrase(q.postalCode))
        continue;
      if (markets.size > 0 && !v.marketIds.some((m) => markets.has(m))) continue;
      if (wantedCities.size > 0 && !entry.cityIds.some((c) => wantedCities.has(c))) continue;
      if (!inclusionAccepts(q.includeTest, v.test)) continue;
      if (nameAny.length > 0) {
        const name = localeValues(v.names).map(normalizedPhrase);
        if (!nameAny.some((part) => name.some((n) => n.includes(part)))) continue;
      }
      if (
        q.excludeExternal &&
        ![...entry.events].some((e) => this.store.entries.get(e)?.external === false)
      )
        continue;
      if (center) {
        const point = toPoint(v.location);
        if (!point || distanceKm(center, point) > km) continue;
      }
      found.push({ ...v, upcomingEvents: this.upcomingAtVenue(id, now) });
    }
    const name = (v: Venue) => fold(pickText(v.names, firstLocale(v.names)));
    const city = (v: Venue) => fold(pickText(v.cityNames, firstLocale(v.cityNames)));
    return sortedPage(found, q.sort, name, offset, limit, {
      'city-asc': (a, b) => city(a).localeCompare(city(b)) || name(a).localeCompare(name(b)),
      'city-desc': (a, b) => city(b).localeCompare(city(a)) || name(a).localeCompare(name(b)),
    });
  }

  searchAttractions(q: AttractionQuery, now: Date, maxSize: number): Page<Attraction> {
    const { offset, limit } = checkPage(q.page, maxSize);
    let ids: Iterable<string> = this.attractions.keys();
    const keywordWords = [...new Set(words(q.keyword))];
    if (keywordWords.length > 0) {
      const sets = keywordWords
        .map((w) => this.attractionByWord.get(w) ?? EMPTY)
        .sort((a, b) => a.size - b.size);
      ids = [...sets[0]!].filter((id) => sets.every((s) => s.has(id)));
    }
    const wantedIds = new Set(q.ids);
    const classIds = new Set(q.classificationIds.map((c) => c.toLowerCase()));
    const classNames = new Set(q.classificationNames.map(normalizedPhrase));
    const nameContains = normalizedPhrase(q.nameContains);
    const fuzzy = words(q.fuzzy);
    const countries = new Set(q.countryCodes.map((c) => c.toUpperCase()));
    const found: Attraction[] = [];
    for (const id of ids) {
      const entry = this.attractions.get(id)!;
      const a = entry.attraction;
      if (wantedIds.size > 0 && !wantedIds.has(id)) continue;
      if (!inclusionAccepts(q.includeTest, a.test)) continue;
      const levels = a.classifications.flatMap((c) => [c.segment, c.genre, c.subGenre]);
      if (classIds.size > 0 && !levels.some((l) => l && classIds.has(l.id.toLowerCase()))) continue;
      if (
        classNames.size > 0 &&
        !levels.some(
          (l) => l && localeValues(l.names).some((n) => classNames.has(normalizedPhrase(n))),
        )
      )
        continue;
      if (
        nameContains &&
        !localeValues(a.names).some((n) => normalizedPhrase(n).includes(nameContains))
      )
        continue;
      if (fuzzy.length > 0 && !fuzzyMatches(fuzzy, entry.nameWords)) continue;
      if (countries.size > 0 && !this.inCountries(entry.events, countries)) continue;
      const upcomingEvents = this.upcomingOfAttraction(id, now);
      if (q.hasEvents && upcomingEvents === 0) continue;
      found.push({ ...a, upcomingEvents });
    }
    const name = (a: Attraction) => fold(pickText(a.names, firstLocale(a.names)));
    return sortedPage(found, q.sort, name, offset, limit);
  }
}

/**
 * The page of `found` (venues or attractions) in the asked order: by name descending, by
 * popularity, or one of `more`, else by name; ties by name, then id.
 */
function sortedPage<T extends { id: string; upcomingEvents: number }>(
  found: T[],
  sort: NameSort,
  name: (item: T) => string,
  offset: number,
  limit: number,
  more: Partial<Record<NameSort, (a: T, b: T) => number>> = {},
): Page<T> {
  const cmp: Partial<Record<NameSort, (a: T, b: T) => number>> = {
    'name-desc': (a, b) => name(b).localeCompare(name(a)),
    ...more,
    'popularity-desc': (a, b) => b.upcomingEvents - a.upcomingEvents,
    'popularity-asc': (a, b) => a.upcomingEvents - b.upcomingEvents,
  };
  const primary = cmp[sort] ?? ((a, b) => name(a).localeCompare(name(b)));
  found.sort((a, b) => primary(a, b) || name(a).localeCompare(name(b)) || byId(a, b));
  return { items: found.slice(offset, offset + limit), total: found.length, offset, limit };
}

/** A usable point: finite, and not (0, 0) (what a missing location decodes to). */
export const toPoint = (
  p: { latitude: number; longitude: number } | undefined,
): Point | undefined =>
  p &&
  Number.isFinite(p.latitude) &&
  Number.isFinite(p.longitude) &&
  !(p.latitude === 0 && p.longitude === 0)
    ? { latitude: p.latitude, longitude: p.longitude }
    : undefined;

/** Folded name words, each a prefix of or one edit away from a word of `names` (fuzzy match). */
function fuzzyMatches(queryWords: readonly string[], nameWords: readonly string[]): boolean {
  return queryWords.every((q) => nameWords.some((w) => w.startsWith(q) || withinOneEdit(q, w)));
}

function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    if (++edits > 1) return false;
    if (a.length > b.length) i++;
    else if (b.length > a.length) j++;
    else {
      i++;
      j++;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}

function addTo<V>(map: Map<string, Set<V>>, key: string, id: V): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(id);
}

function removeFrom<V>(map: Map<string, Set<V>>, key: string, id: V): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(id);
  if (set.size === 0) map.delete(key);
}
