import {
  EventStatus as EventStatusMessage,
  OutletType as OutletTypeMessage,
  PriceRangeType as PriceRangeTypeMessage,
  type AttractionRef,
  type ClassificationSegment as ClassificationSegmentMessage,
  type DiscoveryAttraction,
  type DiscoveryVenue,
  type Event,
  type EventOrigin as EventOriginMessage,
} from '@marquee/proto/catalog/v1';
import type {
  Attraction,
  CatalogEvent,
  ClassificationSegment,
  EntityRef,
  EventOrigin,
  EventStatus,
  OutletType,
  PriceRangeType,
  Venue,
} from '../../domain/model.js';

/**
 * The domain's records (domain/model.ts) as the marquee.catalog.v1 messages CatalogService answers
 * with: the only place on the way out that knows both (search-mapping.ts does the queries). The
 * parts whose shapes are the same on both sides are taken as they are; enums get their message
 * names and unions become oneofs. An event is mapped once per version, when the index packs it
 * (adapters/protobuf-event-codec.ts), not per search; what is mapped per call is the answer of
 * GetEvent and of the venue, attraction and classification methods.
 */

const STATUSES: Readonly<Record<EventStatus, EventStatusMessage>> = {
  unspecified: EventStatusMessage.EVENT_STATUS_UNSPECIFIED,
  onsale: EventStatusMessage.EVENT_STATUS_ONSALE,
  offsale: EventStatusMessage.EVENT_STATUS_OFFSALE,
  cancelled: EventStatusMessage.EVENT_STATUS_CANCELLED,
  postponed: EventStatusMessage.EVENT_STATUS_POSTPONED,
  rescheduled: EventStatusMessage.EVENT_STATUS_RESCHEDULED,
  unrecognized: EventStatusMessage.UNRECOGNIZED,
};

const PRICE_RANGE_TYPES: Readonly<Record<PriceRangeType, PriceRangeTypeMessage>> = {
  unspecified: PriceRangeTypeMessage.PRICE_RANGE_TYPE_UNSPECIFIED,
  standard: PriceRangeTypeMessage.PRICE_RANGE_TYPE_STANDARD,
  'standard-including-fees': PriceRangeTypeMessage.PRICE_RANGE_TYPE_STANDARD_INCLUDING_FEES,
  unrecognized: PriceRangeTypeMessage.UNRECOGNIZED,
};

const OUTLET_TYPES: Readonly<Record<OutletType, OutletTypeMessage>> = {
  unspecified: OutletTypeMessage.OUTLET_TYPE_UNSPECIFIED,
  'venue-box-office': OutletTypeMessage.OUTLET_TYPE_VENUE_BOX_OFFICE,
  unrecognized: OutletTypeMessage.UNRECOGNIZED,
};

/** A venue or attraction reference (`VenueRef` and `AttractionRef` have the same fields). */
function refMessageOf(ref: EntityRef): AttractionRef {
  const target = ref.ref;
  return {
    ref:
      target?.kind === 'id'
        ? { $case: 'id', value: target.id }
        : target?.kind === 'source'
          ? { $case: 'source', value: target.source }
          : undefined,
    names: ref.names,
    resolvedId: ref.resolvedId,
  };
}

function locationMessageOf(location: CatalogEvent['location']): Event['location'] {
  if (location?.kind === 'venue') return { $case: 'venue', value: refMessageOf(location.venue) };
  if (location?.kind === 'place') return { $case: 'place', value: location.place };
  return undefined;
}

function originMessageOf(origin: EventOrigin): EventOriginMessage {
  const kind = origin.kind;
  if (kind?.type === 'published') {
    return { kind: { $case: 'published', value: { appId: kind.appId } } };
  }
  if (kind?.type === 'partner-import') {
    return {
      kind: {
        $case: 'partnerImport',
        value: {
          partnerId: kind.partnerId,
          partnerEventId: kind.partnerEventId,
          partnerVenueId: kind.partnerVenueId,
          lastModification: kind.lastModification,
        },
      },
    };
  }
  return { kind: undefined };
}

/** An event as the `Event` message: every field of the record. */
export function eventMessageOf(event: CatalogEvent): Event {
  return {
    id: event.id,
    source: event.source,
    version: event.version,
    publisherVersion: event.publisherVersion,
    active: event.active,
    test: event.test,
    url: event.url,
    names: event.names,
    descriptions: event.descriptions,
    infos: event.infos,
    additionalInfos: event.additionalInfos,
    pleaseNotes: event.pleaseNotes,
    attractions: event.attractions.map(refMessageOf),
    classifications: event.classifications,
    dates: event.dates,
    images: event.images,
    outlets: event.outlets.map((outlet) => ({ url: outlet.url, type: OUTLET_TYPES[outlet.type] })),
    location: locationMessageOf(event.location),
    priceRanges: event.priceRanges.map((range) => ({
      type: PRICE_RANGE_TYPES[range.type],
      min: range.min,
      max: range.max,
    })),
    promoter: event.promoter,
    publicVisibility: event.publicVisibility,
    sales: event.sales,
    marketIds: event.marketIds,
    origin: event.origin && originMessageOf(event.origin),
    status: STATUSES[event.status],
    ticketing: event.ticketing,
    createdAt: event.createdAt,
    updatedAt: event.updatedAt,
    seatmap: event.seatmap,
    package: event.package,
    availability: event.availability,
  };
}

export function venueMessageOf(venue: Venue): DiscoveryVenue {
  return {
    id: venue.id,
    names: venue.names,
    test: venue.test,
    postalCode: venue.postalCode,
    timezone: venue.timezone,
    marketIds: venue.marketIds,
    country: venue.country,
    state: venue.state,
    cityNames: venue.cityNames,
    location: venue.location,
    address: venue.address,
    upcomingEvents: venue.upcomingEvents,
    cityId: venue.cityId,
  };
}

export function attractionMessageOf(attraction: Attraction): DiscoveryAttraction {
  return {
    id: attraction.id,
    names: attraction.names,
    test: attraction.test,
    url: attraction.url,
    images: attraction.images,
    classifications: attraction.classifications,
    upcomingEvents: attraction.upcomingEvents,
  };
}

export function segmentMessageOf(segment: ClassificationSegment): ClassificationSegmentMessage {
  return {
    segment: segment.segment,
    genres: segment.genres.map((g) => ({ genre: g.genre, subGenres: g.subGenres })),
    eventCount: segment.eventCount,
  };
}
