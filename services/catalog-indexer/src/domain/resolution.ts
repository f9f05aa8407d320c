import type { Attraction, CatalogEvent, Classification, EntityRef, Venue } from './model.js';
import { firstLocale, normalizedPhrase, pickText, stableId } from './text.js';
import { primaryCityId } from './city-id.js';

/**
 * An event with its venue and attraction references resolved to discovery ids (publishing rules 2,
 * 4 and 5: a venue is an id known to discovery, a publisher `source` reference, or an inline
 * `place`). `venue` and `attractions` are what this event tells about them; the catalog merges what
 * several events tell about the same venue (see CatalogIndex).
 */
export interface ResolvedEvent {
  event: CatalogEvent;
  venue: Venue | undefined;
  /** `true` when `venue` carries a full description (an inline place), not just a name. */
  venueDescribed: boolean;
  attractions: Attraction[];
}

const emptyVenue = (id: string): Venue => ({
  id,
  names: undefined,
  test: false,
  postalCode: '',
  timezone: '',
  marketIds: [],
  country: undefined,
  state: undefined,
  cityNames: undefined,
  location: undefined,
  address: undefined,
  upcomingEvents: 0,
  cityId: 0,
});

/** Venue id of an inline place: the same place of the same supplier is one venue. */
export function placeVenueId(event: CatalogEvent): string | undefined {
  if (event.location?.kind !== 'place') return undefined;
  const place = event.location.place;
  const name = pickText(place.names, firstLocale(place.names));
  return stableId(
    'Z',
    event.source?.id ?? '',
    normalizedPhrase(name),
    normalizedPhrase(place.postalCode),
    place.country?.countryCode.toUpperCase() ?? '',
  );
}

/** Discovery id of a source reference that the producer could not resolve. */
export const sourceVenueId = (sourceName: string, id: string): string =>
  stableId('Z', 'source', sourceName, id);
export const sourceAttractionId = (sourceName: string, id: string): string =>
  stableId('K', 'source', sourceName, id);

/** The discovery id a reference names: the one resolved, else its id, else one for its source. */
function referencedId(ref: EntityRef, sourceId: (name: string, id: string) => string): string {
  if (ref.resolvedId) return ref.resolvedId;
  if (ref.ref?.kind === 'id') return ref.ref.id;
  if (ref.ref?.kind === 'source') return sourceId(ref.ref.source.name, ref.ref.source.id);
  return '';
}

function uniqueClassifications(list: readonly Classification[]): Classification[] {
  const seen = new Set<string>();
  return list.filter((c) => {
    const key = [c.segment?.id, c.genre?.id, c.subGenre?.id].join('/');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function resolveEvent(input: CatalogEvent): ResolvedEvent {
  const event: CatalogEvent = { ...input };
  let venue: Venue | undefined;
  let venueDescribed = false;
  const location = input.location;
  if (location?.kind === 'place') {
    const place = location.place;
    const id = placeVenueId(input)!;
    venue = {
      ...emptyVenue(id),
      names: place.names,
      test: input.test,
      postalCode: place.postalCode,
      timezone: input.dates?.timezone ?? '',
      marketIds: [...input.marketIds],
      country: place.country,
      state: place.state,
      cityNames: place.cityNames,
      cityId: primaryCityId(place.country?.countryCode ?? '', place.cityNames),
      location: place.location,
      address: place.address,
    };
    venueDescribed = true;
    event.location = {
      kind: 'venue',
      venue: { ref: undefined, names: place.names, resolvedId: id },
    };
  } else if (location?.kind === 'venue') {
    const ref = location.venue;
    const id = referencedId(ref, sourceVenueId);
    if (id) {
      venue = {
        ...emptyVenue(id),
        names: ref.names,
        test: input.test,
        timezone: input.dates?.timezone ?? '',
        marketIds: [...input.marketIds],
      };
      event.location = { kind: 'venue', venue: { ...ref, resolvedId: id } };
    }
  }
  const attractions: Attraction[] = [];
  event.attractions = input.attractions.map((ref) => {
    const id = referencedId(ref, sourceAttractionId);
    if (id && !attractions.some((a) => a.id === id)) {
      attractions.push({
        id,
        names: ref.names,
        test: input.test,
        url: '',
        images: [],
        classifications: uniqueClassifications(input.classifications),
        upcomingEvents: 0,
      });
    }
    return { ...ref, resolvedId: id };
  });
  return { event, venue, venueDescribed, attractions };
}

/**
 * Whether the public may see the event now: active, and inside its public-visibility window
 * (inactive events and those outside `publicVisibility` never appear in discovery).
 */
export function isPubliclyVisible(event: CatalogEvent, now: Date): boolean {
  if (!event.active) return false;
  const window = event.publicVisibility;
  if (!window) return true;
  if (!window.visible) return false;
  if (window.startDateTime && window.startDateTime.getTime() > now.getTime()) return false;
  if (window.endDateTime && window.endDateTime.getTime() <= now.getTime()) return false;
  return true;
}
