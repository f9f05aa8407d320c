import type {
  AttractionRef,
  ClassificationLevel,
  Event,
  PriceRange,
  VenueRef,
} from '@marquee/proto/catalog/v1';
import type { LocalizedString } from '@marquee/proto/common/v1';
import type { DealEvent, DealVenue, EventPrice, NamedRef } from '../../domain/deal-event.js';
import { countryOfMarkets } from '../../domain/markets.js';
import { publicIdOf } from '../../domain/public-id.js';

/** The text of a locale map: en-us, then en, then any locale; `''` when empty. */
export function pickText(text: LocalizedString | undefined): string {
  const values = text?.values ?? {};
  return values['en-us'] ?? values['en'] ?? Object.values(values)[0] ?? '';
}

const allTexts = (text: LocalizedString | undefined): string[] =>
  Object.values(text?.values ?? {})
    .map((v) => v.trim().toLowerCase())
    .filter((v) => v.length > 0);

function priceOf(ranges: readonly PriceRange[]): EventPrice | undefined {
  const standard = ranges.filter((r) => r.type === 'PRICE_RANGE_TYPE_STANDARD');
  const usable = (standard.length > 0 ? standard : ranges).filter((r) => r.min || r.max);
  const currency = usable[0]?.min?.currency || usable[0]?.max?.currency;
  if (!currency) return undefined;
  // One currency per result (its `currency`): ranges in other currencies are left out.
  const same = usable.filter((r) => (r.min?.currency || r.max?.currency) === currency);
  const mins = same.map((r) => (r.min ?? r.max)!.amountMinor);
  const maxes = same.map((r) => (r.max ?? r.min)!.amountMinor);
  return { minMinor: Math.min(...mins), maxMinor: Math.max(...maxes), currency };
}

/** The platform id of a referenced entity: the discovery id, else its source reference. */
function refId(ref: AttractionRef | VenueRef): string | undefined {
  if (ref.resolvedId) return ref.resolvedId;
  if (ref.ref?.$case === 'id') return ref.ref.value;
  if (ref.ref?.$case === 'source') return `source:${ref.ref.value.name}:${ref.ref.value.id}`;
  return undefined;
}

function genreRef(level: ClassificationLevel | undefined): NamedRef | undefined {
  if (!level) return undefined;
  const name = pickText(level.names);
  const id = level.id || (name ? `name:${name.toLowerCase()}` : '');
  if (!id) return undefined;
  return { id, name, number: publicIdOf('genre', id) };
}

const uniqueById = (refs: Array<NamedRef | undefined>): NamedRef[] => {
  const seen = new Map<string, NamedRef>();
  for (const ref of refs) if (ref && !seen.has(ref.id)) seen.set(ref.id, ref);
  return [...seen.values()];
};

function venueOf(event: Event): {
  venue?: DealVenue;
  cities: string[];
  states: string[];
  country?: string;
} {
  const location = event.location;
  if (location?.$case === 'venue') {
    const id = refId(location.value);
    const venue = id
      ? { id, name: pickText(location.value.names), number: publicIdOf('venue', id) }
      : undefined;
    return { ...(venue ? { venue } : {}), cities: [], states: [] };
  }
  if (location?.$case === 'place') {
    const place = location.value;
    const name = pickText(place.names);
    const point = place.location;
    // A place has no id of its own: its name and position identify it.
    const id = `place:${name.toLowerCase()}@${point ? `${point.latitude},${point.longitude}` : ''}`;
    const country = place.country?.countryCode.trim().toUpperCase() || undefined;
    return {
      venue: {
        id,
        name,
        number: publicIdOf('venue', id),
        ...(point ? { latitude: point.latitude, longitude: point.longitude } : {}),
      },
      cities: allTexts(place.cityNames),
      states: [
        ...(place.state?.stateCode ? [place.state.stateCode.trim().toLowerCase()] : []),
        ...allTexts(place.state?.names),
      ],
      ...(country ? { country } : {}),
    };
  }
  return { cities: [], states: [] };
}

/** `event-changed` state → the deals projection of it (what a deals search needs). */
export function toDealEvent(event: Event): DealEvent {
  const where = venueOf(event);
  const country = where.country ?? countryOfMarkets(event.marketIds);
  const classifications = [...event.classifications].sort(
    (a, b) => Number(b.primary) - Number(a.primary),
  );
  const price = priceOf(event.priceRanges);
  const visibility = event.publicVisibility;
  const startAt = event.dates?.start?.dateTime;
  const onsaleAt = event.sales?.publicSale?.startDateTime;
  return {
    id: event.id,
    eventVersion: event.version,
    deleted: false,
    active: event.active && (visibility ? visibility.visible : true),
    test: event.test,
    name: pickText(event.names),
    detailsUrl: event.url,
    ...(startAt ? { startAt } : {}),
    ...(onsaleAt ? { onsaleAt } : {}),
    ...(visibility?.startDateTime ? { visibleFrom: visibility.startDateTime } : {}),
    ...(visibility?.endDateTime ? { visibleUntil: visibility.endDateTime } : {}),
    ...(price ? { price } : {}),
    attractions: uniqueById(
      event.attractions.map((a) => {
        const id = refId(a);
        return id
          ? { id, name: pickText(a.names), number: publicIdOf('attraction', id) }
          : undefined;
      }),
    ),
    ...(where.venue ? { venue: where.venue } : {}),
    cities: where.cities,
    states: where.states,
    ...(country ? { country } : {}),
    majorGenres: uniqueById(classifications.map((c) => genreRef(c.genre))),
    minorGenres: uniqueById(classifications.map((c) => genreRef(c.subGenre))),
    marketIds: [...new Set(event.marketIds)],
  };
}
