import type { catalogV1, commonV1 } from '@marquee/proto';
import type { PublishedEvent } from '../domain/published-event.js';
import type { PublishedEventBody } from '@marquee/api-schemas';
import { roundToMinor } from '@marquee/platform/money';

type Body = PublishedEventBody;
type LocaleMap = Record<string, string> | undefined;

const localized = (map: LocaleMap): commonV1.LocalizedString | undefined =>
  map && Object.keys(map).length > 0 ? { values: { ...map } } : undefined;

const instant = (value: string | undefined): Date | undefined =>
  value === undefined ? undefined : new Date(value);

type Ref = { id?: unknown; source?: unknown };

function reference(
  ref: Ref,
): { $case: 'id'; value: string } | { $case: 'source'; value: catalogV1.SourceRef } {
  if (typeof ref.id === 'string') return { $case: 'id', value: ref.id };
  const source = ref.source as { id: string; name: string };
  return { $case: 'source', value: { id: source.id, name: source.name } };
}

function location(body: Body): catalogV1.Event['location'] {
  if (body.venue) {
    const ref = reference(body.venue);
    return {
      $case: 'venue',
      value: { ref, names: undefined, resolvedId: ref.$case === 'id' ? ref.value : '' },
    };
  }
  const place = body.place;
  if (!place) return undefined;
  return {
    $case: 'place',
    value: {
      names: localized(place.names),
      address: place.address
        ? { line1: localized(place.address.line1s), line2: localized(place.address.line2s) }
        : undefined,
      areaNames: localized(place.area?.names),
      cityNames: localized(place.city?.names),
      country: place.country
        ? { countryCode: place.country.countryCode ?? '', names: localized(place.country.names) }
        : undefined,
      state: place.state
        ? { stateCode: place.state.stateCode ?? '', names: localized(place.state.names) }
        : undefined,
      postalCode: place.postalCode ?? '',
      location:
        place.location?.latitude !== undefined && place.location.longitude !== undefined
          ? { latitude: place.location.latitude, longitude: place.location.longitude }
          : undefined,
    },
  };
}

const level = (value: { id?: string; names?: LocaleMap } | undefined) =>
  value ? { id: value.id ?? '', names: localized(value.names) } : undefined;

function priceRanges(body: Body): catalogV1.PriceRange[] {
  const ranges = body.priceRanges === undefined ? [] : [body.priceRanges].flat();
  return ranges.map((range) => {
    const currency = range.currency ?? '';
    // Validation requires a known currency wherever there is an amount (minor units of it).
    const money = (amount: number | undefined) =>
      amount === undefined ? undefined : { amountMinor: roundToMinor(amount, currency), currency };
    return {
      type: 'PRICE_RANGE_TYPE_STANDARD' as catalogV1.PriceRangeType,
      min: money(range.min),
      max: money(range.max),
    };
  });
}

/**
 * The whole current state of a published event as every consumer of `event-changed` reads it
 * (proto/marquee/catalog/v1/event.proto). Defaults of the publishing API are resolved here:
 * `active` true, `test` false, `publicVisibility.visible` true. Unknown properties of the body are
 * not carried: the publishing API keeps them out of discovery.
 */
export function toCatalogEvent(published: PublishedEvent): catalogV1.Event {
  const body = published.body as Body;
  return {
    id: published.id,
    source: sourceOf(body),
    version: published.version,
    publisherVersion: published.publisherVersion ?? 0,
    active: body.active ?? true,
    test: body.test ?? false,
    url: body.url ?? '',
    names: localized(body.names),
    descriptions: localized(body.descriptions),
    infos: localized(body.infos),
    additionalInfos: localized(body.additionalInfos),
    pleaseNotes: localized(body.pleaseNotes),
    attractions: (body.attractions ?? []).map((attraction) => {
      const ref = reference(attraction);
      return { ref, names: undefined, resolvedId: ref.$case === 'id' ? ref.value : '' };
    }),
    classifications: (body.classifications ?? []).map((c) => ({
      primary: c.primary ?? false,
      segment: level(c.segment),
      genre: level(c.genre),
      subGenre: level(c.subGenre),
    })),
    dates: eventDates(body.dates),
    images: images(body),
    outlets: outlets(body),
    location: location(body),
    priceRanges: priceRanges(body),
    promoter: body.promoter
      ? {
          id: body.promoter.id ?? '',
          names: localized(body.promoter.names),
          descriptions: localized(body.promoter.descriptions),
        }
      : undefined,
    publicVisibility: publicVisibility(body),
    sales: sales(body),
    // The publishing API has no market field; markets are the indexer's business.
    marketIds: [],
    origin: { kind: { $case: 'published', value: { appId: published.appId } } },
    status: 'EVENT_STATUS_UNSPECIFIED' as catalogV1.EventStatus,
    ticketing: undefined,
    seatmap: body.seatmap ? { staticUrl: body.seatmap.staticUrl } : undefined,
    // Published events are never packages; partner imports may set it.
    package: false,
    createdAt: published.createdAt,
    updatedAt: published.updatedAt,
  };
}

function sourceOf(body: Body): catalogV1.Event['source'] {
  const source = body.source as {
    id: string;
    name: string;
    publishingSource?: { id?: string; name?: string };
  };
  return {
    id: source.id,
    name: source.name,
    publishingSource: source.publishingSource
      ? { id: source.publishingSource.id ?? '', name: source.publishingSource.name ?? '' }
      : undefined,
  };
}

function eventDates(dates: Body['dates']): catalogV1.Event['dates'] {
  if (!dates) return undefined;
  return {
    start: dates.start
      ? {
          localDate: dates.start.localDate ?? '',
          localTime: dates.start.localTime ?? '',
          dateTime: instant(dates.start.dateTime),
          dateTbd: dates.start.dateTBD ?? false,
          dateTba: dates.start.dateTBA ?? false,
          timeTba: dates.start.timeTBA ?? false,
          noSpecificTime: dates.start.noSpecificTime ?? false,
        }
      : undefined,
    access: dates.access
      ? {
          startDateTime: instant(dates.access.startDateTime),
          endDateTime: instant(dates.access.endDateTime),
          startApproximate: dates.access.startApproximate ?? false,
          endApproximate: dates.access.endApproximate ?? false,
        }
      : undefined,
    end: dates.end
      ? {
          localTime: dates.end.localTime ?? '',
          dateTime: instant(dates.end.dateTime),
          approximate: dates.end.approximate ?? false,
        }
      : undefined,
    timezone: dates.timezone ?? '',
  };
}

function images(body: Body): catalogV1.Event['images'] {
  return (body.images ?? []).map((image) => ({
    url: image.url ?? '',
    width: Math.round(image.width ?? 0),
    height: Math.round(image.height ?? 0),
    ratio: image.ratio ?? '',
    fallback: false,
  }));
}

function outlets(body: Body): catalogV1.Event['outlets'] {
  return (body.outlets ?? []).map((outlet) => ({
    url: outlet.url ?? '',
    type: (outlet.type === 'venueBoxOffice'
      ? 'OUTLET_TYPE_VENUE_BOX_OFFICE'
      : 'OUTLET_TYPE_UNSPECIFIED') as catalogV1.OutletType,
  }));
}

/** Absent = always visible; when given, `visible` defaults to true (a publishing API default). */
function publicVisibility(body: Body): catalogV1.Event['publicVisibility'] {
  return body.publicVisibility
    ? {
        startDateTime: instant(body.publicVisibility.startDateTime),
        endDateTime: instant(body.publicVisibility.endDateTime),
        visible: body.publicVisibility.visible ?? true,
      }
    : undefined;
}

function sales(body: Body): catalogV1.Event['sales'] {
  return body.sales?.public
    ? {
        publicSale: {
          startDateTime: instant(body.sales.public.startDateTime),
          endDateTime: instant(body.sales.public.endDateTime),
          startTbd: body.sales.public.startTBD ?? false,
        },
      }
    : undefined;
}
