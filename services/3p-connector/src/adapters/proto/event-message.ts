import { catalogV1 } from '@marquee/proto';
import type { DiscoveryEvent, EventLocation } from '../../domain/discovery-event.js';

const { EVENT_STATUS_CANCELLED, EVENT_STATUS_ONSALE } = catalogV1.EventStatus;

/** A discovery event as catalog.v1 `Event` (`event-changed`, and its stored bytes). */
export function toCatalogEventMessage(event: DiscoveryEvent): catalogV1.Event {
  return {
    id: event.id,
    source: { ...event.source, publishingSource: undefined },
    version: event.version,
    publisherVersion: 0,
    active: event.active,
    test: false,
    url: '',
    names: event.names,
    descriptions: event.descriptions,
    infos: undefined,
    additionalInfos: undefined,
    pleaseNotes: undefined,
    attractions: [],
    classifications: event.classifications.map((c) => ({
      primary: c.primary,
      segment: undefined,
      genre: c.genre,
      subGenre: undefined,
    })),
    dates: event.dates && { ...event.dates, end: undefined },
    images: [],
    outlets: [],
    location: event.location && locationMessage(event.location),
    priceRanges: event.priceRange
      ? [{ type: catalogV1.PriceRangeType.PRICE_RANGE_TYPE_STANDARD, ...event.priceRange }]
      : [],
    promoter: event.promoter && { ...event.promoter, descriptions: undefined },
    publicVisibility: event.publicVisibility,
    sales: event.publicSale && { publicSale: event.publicSale },
    marketIds: [],
    origin: { kind: { $case: 'partnerImport', value: event.origin } },
    status: event.cancelled ? EVENT_STATUS_CANCELLED : EVENT_STATUS_ONSALE,
    ticketing: event.ticketing,
    createdAt: event.createdAt,
    updatedAt: event.updatedAt,
    seatmap: undefined,
    package: false,
  };
}

function locationMessage(location: EventLocation): catalogV1.Event['location'] {
  if (location.kind === 'place') {
    const { place } = location;
    return {
      $case: 'place',
      value: {
        names: place.names,
        address: undefined,
        areaNames: undefined,
        cityNames: place.cityNames,
        country: { countryCode: place.country.countryCode, names: place.country.names },
        state: undefined,
        postalCode: '',
        location: undefined,
      },
    };
  }
  return {
    $case: 'venue',
    value: {
      ref: { $case: 'source', value: location.venue.ref },
      names: location.venue.names,
      resolvedId: '',
    },
  };
}

/** A stored catalog.v1 `Event` as the discovery event it was made from. */
export function fromCatalogEventMessage(message: catalogV1.Event): DiscoveryEvent {
  const origin: Partial<catalogV1.PartnerImportOrigin> =
    message.origin?.kind?.$case === 'partnerImport' ? message.origin.kind.value : {};
  const [range] = message.priceRanges;
  const start = message.dates?.start;
  return {
    id: message.id,
    source: { id: message.source?.id ?? '', name: message.source?.name ?? '' },
    version: message.version,
    active: message.active,
    names: message.names,
    descriptions: message.descriptions,
    classifications: message.classifications.map((c) => ({
      primary: c.primary,
      genre: { id: c.genre?.id ?? '', names: c.genre?.names },
    })),
    dates: message.dates &&
      start && { start, access: message.dates.access, timezone: message.dates.timezone },
    location: locationOf(message.location),
    priceRange: range?.min && range.max ? { min: range.min, max: range.max } : undefined,
    promoter: message.promoter && { id: message.promoter.id, names: message.promoter.names },
    publicVisibility: message.publicVisibility,
    publicSale: message.sales?.publicSale,
    origin: {
      partnerId: origin.partnerId ?? '',
      partnerEventId: origin.partnerEventId ?? '',
      partnerVenueId: origin.partnerVenueId ?? '',
      lastModification: origin.lastModification,
    },
    cancelled: message.status === EVENT_STATUS_CANCELLED,
    ticketing: message.ticketing,
    createdAt: message.createdAt,
    updatedAt: message.updatedAt,
  };
}

function locationOf(location: catalogV1.Event['location']): EventLocation | undefined {
  if (location?.$case === 'place') {
    const { names, cityNames, country } = location.value;
    return {
      kind: 'place',
      place: {
        names,
        cityNames,
        country: { countryCode: country?.countryCode ?? '', names: country?.names },
      },
    };
  }
  if (location?.$case === 'venue') {
    const { ref, names } = location.value;
    return {
      kind: 'venue',
      venue: {
        ref: ref?.$case === 'source' ? ref.value : { id: ref?.value ?? '', name: '' },
        names,
      },
    };
  }
  return undefined;
}
