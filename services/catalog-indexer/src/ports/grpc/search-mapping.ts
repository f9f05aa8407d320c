import {
  EventSort as EventSortMessage,
  Inclusion as InclusionMessage,
  NameSort as NameSortMessage,
  type SearchAttractionsRequest,
  type SearchClassificationsRequest,
  type SearchEventsRequest,
  type SearchVenuesRequest,
} from '@marquee/proto/catalog/v1';
import { DistanceUnit, type GeoPoint } from '@marquee/proto/common/v1';
import type {
  Area,
  AttractionQuery,
  ClassificationQuery,
  EventQuery,
  EventSort,
  Inclusion,
  NameSort,
  VenueQuery,
} from '../../domain/catalog-index.js';

/**
 * CatalogService requests as the domain's queries (domain/search/query.ts): the only place that
 * knows both. Unset enums take the API's defaults (inclusions `no`, sorts by name or date).
 */

/** INCLUSION_UNSPECIFIED as `no`, the API's default for test, TBA and TBD. */
function inclusion(value: InclusionMessage): Inclusion {
  switch (value) {
    case InclusionMessage.INCLUSION_YES:
      return 'yes';
    case InclusionMessage.INCLUSION_ONLY:
      return 'only';
    default:
      return 'no';
  }
}

/** INCLUSION_UNSPECIFIED as no filter (cancelled and rescheduled events). */
function optionalInclusion(value: InclusionMessage): Inclusion | undefined {
  return value === InclusionMessage.INCLUSION_UNSPECIFIED || value === InclusionMessage.UNRECOGNIZED
    ? undefined
    : inclusion(value);
}

const EVENT_SORTS: Readonly<Record<EventSortMessage, EventSort>> = {
  [EventSortMessage.EVENT_SORT_UNSPECIFIED]: 'default',
  [EventSortMessage.EVENT_SORT_DATE_ASC]: 'date-asc',
  [EventSortMessage.EVENT_SORT_DATE_DESC]: 'date-desc',
  [EventSortMessage.EVENT_SORT_NAME_ASC]: 'name-asc',
  [EventSortMessage.EVENT_SORT_NAME_DESC]: 'name-desc',
  [EventSortMessage.EVENT_SORT_ONSALE_ASC]: 'onsale-asc',
  [EventSortMessage.EVENT_SORT_ONSALE_DESC]: 'onsale-desc',
  [EventSortMessage.EVENT_SORT_DISTANCE_ASC]: 'distance-asc',
  [EventSortMessage.EVENT_SORT_DISTANCE_DESC]: 'distance-desc',
  [EventSortMessage.EVENT_SORT_POPULARITY_DESC]: 'popularity-desc',
  [EventSortMessage.EVENT_SORT_POPULARITY_ASC]: 'popularity-asc',
  [EventSortMessage.UNRECOGNIZED]: 'default',
};

const NAME_SORTS: Readonly<Record<NameSortMessage, NameSort>> = {
  [NameSortMessage.NAME_SORT_UNSPECIFIED]: 'name-asc',
  [NameSortMessage.NAME_SORT_NAME_DESC]: 'name-desc',
  [NameSortMessage.NAME_SORT_CITY_ASC]: 'city-asc',
  [NameSortMessage.NAME_SORT_CITY_DESC]: 'city-desc',
  [NameSortMessage.NAME_SORT_POPULARITY_DESC]: 'popularity-desc',
  [NameSortMessage.NAME_SORT_POPULARITY_ASC]: 'popularity-asc',
  [NameSortMessage.UNRECOGNIZED]: 'name-asc',
};

function area(latlong: GeoPoint | undefined, radius: number, unit: DistanceUnit): Area | undefined {
  if (!latlong) return undefined;
  return {
    center: { latitude: latlong.latitude, longitude: latlong.longitude },
    radius,
    unit: unit === DistanceUnit.DISTANCE_UNIT_KILOMETERS ? 'km' : 'miles',
  };
}

export function eventQueryOf(q: SearchEventsRequest): EventQuery {
  return {
    keyword: q.keyword,
    nameContains: q.nameContains,
    eventIds: q.eventIds,
    attractionIds: q.attractionIds,
    venueIds: q.venueIds,
    classificationIds: q.classificationIds,
    classificationNames: q.classificationNames,
    marketIds: q.marketIds,
    // An id that is not a number names no area (no events), as before the planner split.
    dmaId: q.dmaId ? Number(q.dmaId) : undefined,
    cityIds: q.cityIds,
    near: area(q.latlong, q.radius, q.unit),
    postalCode: q.postalCode,
    city: q.city,
    countryCodes: q.countryCodes,
    stateCodes: q.stateCodes,
    sources: q.sources,
    promoterIds: q.promoterIds,
    start: { from: q.startDateTime, to: q.endDateTime },
    onsale: { from: q.onsaleStartDateTime, to: q.onsaleEndDateTime },
    offsale: { from: q.offsaleStartDateTime, to: q.offsaleEndDateTime },
    minPrice: q.minPrice,
    maxPrice: q.maxPrice,
    priceExclFees: q.priceExclFees,
    excludePackages: q.excludePackages,
    excludeExternal: q.excludeExternal,
    seatsAvailable: q.seatsAvailable,
    includeTba: inclusion(q.includeTba),
    includeTbd: inclusion(q.includeTbd),
    includeTest: inclusion(q.includeTest),
    includeCancelled: optionalInclusion(q.includeCancelled),
    includeRescheduled: optionalInclusion(q.includeRescheduled),
    sort: EVENT_SORTS[q.sort],
    page: q.page,
  };
}

export function venueQueryOf(q: SearchVenuesRequest): VenueQuery {
  return {
    keyword: q.keyword,
    ids: q.ids,
    countryCodes: q.countryCodes,
    stateCodes: q.stateCodes,
    city: q.city,
    postalCode: q.postalCode,
    near: area(q.latlong, q.radius, q.unit),
    marketIds: q.marketIds,
    cityIds: q.cityIds,
    nameAny: q.nameAny,
    excludeExternal: q.excludeExternal,
    includeTest: inclusion(q.includeTest),
    sort: NAME_SORTS[q.sort],
    page: q.page,
  };
}

export function attractionQueryOf(q: SearchAttractionsRequest): AttractionQuery {
  return {
    keyword: q.keyword,
    ids: q.ids,
    classificationIds: q.classificationIds,
    classificationNames: q.classificationNames,
    nameContains: q.nameContains,
    fuzzy: q.fuzzy,
    countryCodes: q.countryCodes,
    hasEvents: q.hasEvents,
    includeTest: inclusion(q.includeTest),
    sort: NAME_SORTS[q.sort],
    page: q.page,
  };
}

export function classificationQueryOf(q: SearchClassificationsRequest): ClassificationQuery {
  return { keyword: q.keyword, page: q.page };
}
