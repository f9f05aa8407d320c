import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { CurrencyCode } from './currency.js';

/**
 * The types of a published event, as the publishing API accepts it. Only TYPES live here: the
 * publishing rules 1-5 and the warnings are publisher's (services/publisher/src/domain/
 * validate-published-event.ts). Objects accept properties the API does not name (they become
 * `unknownProperties` warnings), except where a rule forbids them: `venue` and each attraction are
 * marked {@link CLOSED} and checked by rules 4 and 5.
 *
 * One schema, two users: the edge validates request bodies with it (early, precise 400s and the
 * OpenAPI document) and publisher validates again, because its gRPC API is an API too.
 */

/** Schema annotation: extra properties here are a rule violation, not an unknown-property warning. */
export const CLOSED = 'x-marquee-closed';

/** Locale map keys are lower-case language-country codes, `xx-yy`. */
export const LOCALE_PATTERN = '^[a-z]{2}-[a-z]{2}$';
const LocaleMap = Type.Record(Type.String({ pattern: LOCALE_PATTERN }), Type.String(), {
  additionalProperties: false,
  description: 'Locale map: keys `xx-yy` (lower-case language-country), values strings',
});

// UTC instants as publishers write them ("2026-07-01T19:30:00Z", optional fraction).
const UtcDateTime = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?Z$',
  description: 'UTC date-time, e.g. 2026-07-01T19:30:00Z',
});
const LocalDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' });
const LocalTime = Type.String({
  pattern: '^\\d{2}:\\d{2}(:\\d{2})?$',
  description: 'HH:MM or HH:MM:SS',
});

const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);

/** An absolute https URL (a host, then an optional path, query or fragment; no spaces). */
const HttpsUrl = Type.String({
  pattern: '^https://[A-Za-z0-9.-]+(:\\d{1,5})?([/?#]\\S*)?$',
  maxLength: 2048,
  description: 'https URL, e.g. https://example.com/seatmap.png',
});

/** rule 4 / 5: `{id}` or `{source: {id, name}}`, nothing else; the rules check the contents. */
const EntityRef = Type.Object(
  { id: opt(Type.Unknown()), source: opt(Type.Unknown()) },
  { [CLOSED]: true },
);

const ClassificationLevel = Type.Object({ id: opt(Type.String()), names: opt(LocaleMap) });

const Names = Type.Object({ names: opt(LocaleMap) });

/** The largest price of a price range, in major units. */
const MAX_PRICE = 100_000_000_000;

const PriceRange = Type.Object({
  type: opt(Type.Literal('standard')),
  currency: opt(CurrencyCode()),
  // In major units; publisher keeps prices as int64 minor units (up to 4 decimals), so the bound
  // keeps every amount exact and in range: a larger one is refused, never a failure.
  min: opt(Type.Number({ minimum: 0, maximum: MAX_PRICE })),
  max: opt(Type.Number({ minimum: 0, maximum: MAX_PRICE })),
});

export const PublishedEventSchema = Type.Object(
  {
    source: opt(
      Type.Object({
        id: opt(Type.Unknown()),
        name: opt(Type.Unknown()),
        publishingSource: opt(Type.Object({ id: opt(Type.String()), name: opt(Type.String()) })),
      }),
    ),
    // rule 1: present only so that its presence is reported by the rule, not as unknown.
    id: opt(Type.Unknown()),
    active: opt(Type.Boolean()),
    test: opt(Type.Boolean()),
    version: opt(Type.Number({ minimum: 0 })),
    url: opt(Type.String()),
    names: opt(LocaleMap),
    descriptions: opt(LocaleMap),
    infos: opt(LocaleMap),
    additionalInfos: opt(LocaleMap),
    pleaseNotes: opt(LocaleMap),
    attractions: opt(Type.Array(EntityRef)),
    classifications: opt(
      Type.Array(
        Type.Object({
          primary: opt(Type.Boolean()),
          segment: opt(ClassificationLevel),
          genre: opt(ClassificationLevel),
          subGenre: opt(ClassificationLevel),
        }),
      ),
    ),
    dates: opt(
      Type.Object({
        start: opt(
          Type.Object({
            localDate: opt(LocalDate),
            localTime: opt(LocalTime),
            dateTime: opt(UtcDateTime),
            dateTBD: opt(Type.Boolean()),
            dateTBA: opt(Type.Boolean()),
            timeTBA: opt(Type.Boolean()),
            noSpecificTime: opt(Type.Boolean()),
          }),
        ),
        access: opt(
          Type.Object({
            startDateTime: opt(UtcDateTime),
            endDateTime: opt(UtcDateTime),
            startApproximate: opt(Type.Boolean()),
            endApproximate: opt(Type.Boolean()),
          }),
        ),
        end: opt(
          Type.Object({
            localTime: opt(LocalTime),
            dateTime: opt(UtcDateTime),
            approximate: opt(Type.Boolean()),
          }),
        ),
        timezone: opt(Type.String({ description: 'IANA time-zone name' })),
      }),
    ),
    images: opt(
      Type.Array(
        Type.Object({
          // Pixels; the catalog holds them as int32.
          height: opt(Type.Number({ minimum: 0, maximum: 2_147_483_647 })),
          width: opt(Type.Number({ minimum: 0, maximum: 2_147_483_647 })),
          ratio: opt(Type.String()),
          url: opt(Type.String()),
        }),
      ),
    ),
    outlets: opt(
      Type.Array(
        Type.Object({ url: opt(Type.String()), type: opt(Type.Literal('venueBoxOffice')) }),
      ),
    ),
    place: opt(
      Type.Object({
        names: opt(LocaleMap),
        address: opt(Type.Object({ line1s: opt(LocaleMap), line2s: opt(LocaleMap) })),
        area: opt(Names),
        city: opt(Names),
        country: opt(
          Type.Object({
            countryCode: opt(Type.String({ pattern: '^[A-Z]{2}$' })),
            names: opt(LocaleMap),
          }),
        ),
        location: opt(
          Type.Object({
            latitude: opt(Type.Number({ minimum: -90, maximum: 90 })),
            longitude: opt(Type.Number({ minimum: -180, maximum: 180 })),
          }),
        ),
        postalCode: opt(Type.String()),
        state: opt(Type.Object({ names: opt(LocaleMap), stateCode: opt(Type.String()) })),
      }),
    ),
    // The publishing API documents an object; the array form publishers also send is accepted too.
    priceRanges: opt(Type.Union([PriceRange, Type.Array(PriceRange)])),
    promoter: opt(
      Type.Object({ id: opt(Type.String()), names: opt(LocaleMap), descriptions: opt(LocaleMap) }),
    ),
    publicVisibility: opt(
      Type.Object({
        startDateTime: opt(UtcDateTime),
        endDateTime: opt(UtcDateTime),
        visible: opt(Type.Boolean()),
      }),
    ),
    sales: opt(
      Type.Object({
        public: opt(
          Type.Object({
            startDateTime: opt(UtcDateTime),
            endDateTime: opt(UtcDateTime),
            startTBD: opt(Type.Boolean()),
          }),
        ),
      }),
    ),
    venue: opt(EntityRef),
    // Our extension (the real Discovery v2 event's `seatmap.staticUrl`): a static seat-map image,
    // shown by discovery (publisher README).
    seatmap: opt(Type.Object({ staticUrl: HttpsUrl })),
  },
  {
    title: 'PublishedEvent',
    description: 'A published event; properties not listed here are reported as unknown',
  },
);

export type PublishedEventBody = Static<typeof PublishedEventSchema>;
export type LocaleMapValue = Static<typeof LocaleMap>;

/** A `{id, name}` reference of a venue or attraction once rules 4/5 accepted it. */
export type EntityReference = { id: string } | { source: { id: string; name: string } };
