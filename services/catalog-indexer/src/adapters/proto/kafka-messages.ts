import {
  EventStatus as EventStatusMessage,
  OutletType as OutletTypeMessage,
  PriceRangeType as PriceRangeTypeMessage,
  SyncScope,
  type AttractionRef,
  type AvailabilityChanged,
  type Event,
  type EventOrigin as EventOriginMessage,
  type Outlet as OutletMessage,
  type PriceRange as PriceRangeMessage,
  type VenueRef,
} from '@marquee/proto/catalog/v1';
import type { AvailabilityScope, AvailabilityUpdate } from '../../domain/availability.js';
import type {
  CatalogEvent,
  EntityRef,
  EventLocation,
  EventOrigin,
  EventStatus,
  Outlet,
  OutletType,
  PriceRange,
  PriceRangeType,
} from '../../domain/model.js';

/**
 * The messages of `event-changed` and `availability-changed` as the domain's records
 * (domain/model.ts, domain/availability.ts): the only place on the way in that knows both, once
 * per record consumed. The parts whose shapes are the same on both sides (texts, dates, places,
 * classifications, ticketing, ...) are taken as they are, without a copy; enums become the
 * domain's names and oneofs its unions. The way out is adapters/proto/catalog-messages.ts, and
 * `eventMessageOf(catalogEventOf(m))` gives `m` back field for field
 * (test/adapters/proto/catalog-messages.unit.test.ts).
 */

export function statusOf(status: EventStatusMessage): EventStatus {
  switch (status) {
    case EventStatusMessage.EVENT_STATUS_UNSPECIFIED:
      return 'unspecified';
    case EventStatusMessage.EVENT_STATUS_ONSALE:
      return 'onsale';
    case EventStatusMessage.EVENT_STATUS_OFFSALE:
      return 'offsale';
    case EventStatusMessage.EVENT_STATUS_CANCELLED:
      return 'cancelled';
    case EventStatusMessage.EVENT_STATUS_POSTPONED:
      return 'postponed';
    case EventStatusMessage.EVENT_STATUS_RESCHEDULED:
      return 'rescheduled';
    default:
      return 'unrecognized';
  }
}

function priceRangeTypeOf(type: PriceRangeTypeMessage): PriceRangeType {
  switch (type) {
    case PriceRangeTypeMessage.PRICE_RANGE_TYPE_UNSPECIFIED:
      return 'unspecified';
    case PriceRangeTypeMessage.PRICE_RANGE_TYPE_STANDARD:
      return 'standard';
    case PriceRangeTypeMessage.PRICE_RANGE_TYPE_STANDARD_INCLUDING_FEES:
      return 'standard-including-fees';
    default:
      return 'unrecognized';
  }
}

function outletTypeOf(type: OutletTypeMessage): OutletType {
  switch (type) {
    case OutletTypeMessage.OUTLET_TYPE_UNSPECIFIED:
      return 'unspecified';
    case OutletTypeMessage.OUTLET_TYPE_VENUE_BOX_OFFICE:
      return 'venue-box-office';
    default:
      return 'unrecognized';
  }
}

const priceRangeOf = (range: PriceRangeMessage): PriceRange => ({
  type: priceRangeTypeOf(range.type),
  min: range.min,
  max: range.max,
});

const outletOf = (outlet: OutletMessage): Outlet => ({
  url: outlet.url,
  type: outletTypeOf(outlet.type),
});

/** A venue or attraction reference: by discovery id, by the publisher's own id, or neither. */
export function entityRefOf(ref: AttractionRef | VenueRef): EntityRef {
  const target = ref.ref;
  return {
    ref:
      target?.$case === 'id'
        ? { kind: 'id', id: target.value }
        : target?.$case === 'source'
          ? { kind: 'source', source: target.value }
          : undefined,
    names: ref.names,
    resolvedId: ref.resolvedId,
  };
}

function locationOf(location: Event['location']): EventLocation | undefined {
  if (location?.$case === 'venue') return { kind: 'venue', venue: entityRefOf(location.value) };
  if (location?.$case === 'place') return { kind: 'place', place: location.value };
  return undefined;
}

function originOf(origin: EventOriginMessage): EventOrigin {
  const kind = origin.kind;
  if (kind?.$case === 'published') return { kind: { type: 'published', appId: kind.value.appId } };
  if (kind?.$case === 'partnerImport') {
    const partner = kind.value;
    return {
      kind: {
        type: 'partner-import',
        partnerId: partner.partnerId,
        partnerEventId: partner.partnerEventId,
        partnerVenueId: partner.partnerVenueId,
        lastModification: partner.lastModification,
      },
    };
  }
  return { kind: undefined };
}

/** An `event-changed` event as the catalog's record of it: every field, absent ones kept absent. */
export function catalogEventOf(event: Event): CatalogEvent {
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
    attractions: event.attractions.map(entityRefOf),
    classifications: event.classifications,
    dates: event.dates,
    images: event.images,
    outlets: event.outlets.map(outletOf),
    location: locationOf(event.location),
    priceRanges: event.priceRanges.map(priceRangeOf),
    promoter: event.promoter,
    publicVisibility: event.publicVisibility,
    sales: event.sales,
    marketIds: event.marketIds,
    origin: event.origin && originOf(event.origin),
    status: statusOf(event.status),
    ticketing: event.ticketing,
    createdAt: event.createdAt,
    updatedAt: event.updatedAt,
    seatmap: event.seatmap,
    package: event.package,
    availability: event.availability,
  };
}

function scopeOf(scope: SyncScope): AvailabilityScope {
  switch (scope) {
    case SyncScope.SYNC_SCOPE_FULL:
      return 'full';
    case SyncScope.SYNC_SCOPE_PARTIAL:
      return 'partial';
    default:
      return 'unspecified';
  }
}

/** An `availability-changed` message as the synchronisation it reports. */
export function availabilityUpdateOf(message: AvailabilityChanged): AvailabilityUpdate {
  return {
    eventId: message.eventId,
    scope: scopeOf(message.scope),
    areas: message.areas.map((area) => ({
      areaId: area.areaId,
      levelId: area.levelId,
      sectionId: area.sectionId,
      available: area.available,
    })),
    totalAvailable: message.totalAvailable,
    observedAt: message.observedAt,
    sequence: message.sequence,
  };
}
