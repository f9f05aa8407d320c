import { PublishedEventSchema } from '@marquee/api-schemas';

/**
 * The body of `POST` and `PUT /publish/.../events` as the OpenAPI document states it: the types of
 * the shared contract (`@marquee/api-schemas`, what the edge validates) plus the publishing rules
 * publisher checks on top of them (services/publisher/README.md), so that the document says every
 * constraint a publication must meet:
 *
 * 1. no `id` (the service generates it);
 * 2. not both `venue` and `place`;
 * 3. a `source` with `id` and `name` made of letters, digits, dashes and underscores;
 * 4. and 5. a venue or an attraction is exactly one of `{id}` or `{source: {id, name}}`;
 * - each classification level has an `id` or `names`;
 * - UTC date-times are instants (months 01-12, days 01-31, hours 00-23, minutes and seconds 00-59);
 * - locale map keys are `xx-yy`;
 * - a price range with `min` or `max` has a `currency`;
 * - no `__proto__` key, nor a `constructor` key holding `prototype`, at any depth (the JSON parser
 *   refuses them: 400 `MALFORMED_REQUEST`), which the description says (JSON Schema cannot state it
 *   of every nested value).
 *
 * The rules' refusals keep their own codes (400 `ID_NOT_ALLOWED`, `INVALID_SOURCE`, ...); only the
 * document changes here. Properties not listed stay allowed (stored, reported as unknown).
 */

type Schema = Record<string, unknown>;

const SOURCE_CHARACTERS = '^[A-Za-z0-9_-]+$';
const UTC_DATE_TIME =
  '^\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])T(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d{1,9})?)?Z$';

const sourceRef = {
  type: 'object',
  required: ['id', 'name'],
  properties: {
    id: { type: 'string', pattern: SOURCE_CHARACTERS },
    name: { type: 'string', pattern: SOURCE_CHARACTERS },
  },
};

/** Rules 4 and 5: `{id}` or `{source: {id, name}}`, nothing else. */
const entityRef = {
  description: 'Exactly one of `id` or `source` (with `id` and `name`), nothing else',
  oneOf: [
    {
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'string', minLength: 1 } },
      additionalProperties: false,
    },
    {
      type: 'object',
      required: ['source'],
      properties: { source: { ...sourceRef, additionalProperties: false } },
      additionalProperties: false,
    },
  ],
};

/** A classification level with a non-empty `id` or at least one name. */
const withIdOrNames = (level: Schema): Schema => ({
  ...level,
  anyOf: [
    { required: ['id'], properties: { id: { type: 'string', minLength: 1 } } },
    { required: ['names'], properties: { names: { type: 'object', minProperties: 1 } } },
  ],
});

/**
 * The schema as the document states it: every `pattern` of the UTC date-time type made the pattern
 * of an instant, and locale maps (`patternProperties` of one key pattern, nothing else) written
 * with `propertyNames`, which the document keeps (its converter turns `patternProperties` into
 * `additionalProperties` and would lose the key pattern).
 */
function documented(node: unknown, utcPattern: string): unknown {
  if (Array.isArray(node)) return node.map((item) => documented(item, utcPattern));
  if (typeof node !== 'object' || node === null) return node;
  const { patternProperties, ...rest } = node as Schema;
  const keyed = Object.entries((patternProperties ?? {}) as Record<string, unknown>);
  const object =
    keyed.length === 1 && rest.additionalProperties === false
      ? { ...rest, propertyNames: { pattern: keyed[0]![0] }, additionalProperties: keyed[0]![1] }
      : node;
  return Object.fromEntries(
    Object.entries(object).map(([key, value]) => [
      key,
      key === 'pattern' && value === utcPattern ? UTC_DATE_TIME : documented(value, utcPattern),
    ]),
  );
}

type Node = Schema & { properties: Record<string, Schema> };

/**
 * A price range with an amount (`min` or `max`) names its currency: publisher refuses one without
 * (400 `INVALID_PROPERTY`, in `missingProperties`). Written with `anyOf`/`not`/`required`, which
 * every JSON Schema draft reads, rather than 2019-09's `dependentRequired`.
 */
const withCurrencyRule = (range: Schema): Schema => ({
  ...range,
  anyOf: [
    { required: ['currency'] },
    { not: { anyOf: [{ required: ['min'] }, { required: ['max'] }] } },
  ],
});

/** `priceRanges`: one range or a list of them, each under {@link withCurrencyRule}. */
function documentedPriceRanges(priceRanges: Schema): Schema {
  const variants = priceRanges.anyOf as Schema[];
  return {
    ...priceRanges,
    anyOf: variants.map((variant) =>
      variant.type === 'array'
        ? { ...variant, items: withCurrencyRule(variant.items as Schema) }
        : withCurrencyRule(variant),
    ),
  };
}

/** The documented body (a plain JSON schema). */
export function documentedPublishedEvent(): Schema {
  const base = JSON.parse(JSON.stringify(PublishedEventSchema)) as Node;
  const utc = ((base.properties.dates as Node).properties.access as Node).properties.startDateTime!
    .pattern as string;
  const event = documented(base, utc) as Node;
  const { id: _id, ...properties } = event.properties;
  const source = properties.source as Node;
  const classifications = properties.classifications as Schema & { items: Node };
  const levels = classifications.items.properties;
  return {
    ...event,
    description:
      `${event.description as string}. Publishing rules: no \`id\`; not both \`venue\` and ` +
      '`place`; a `source` with `id` and `name`; a venue or attraction is `{id}` or `{source}`. ' +
      'No `__proto__` key, nor a `constructor` key holding `prototype`, at any depth (refused by ' +
      'the JSON parser: 400 `MALFORMED_REQUEST`).',
    required: ['source'],
    not: { anyOf: [{ required: ['id'] }, { required: ['venue', 'place'] }] },
    properties: {
      ...properties,
      source: {
        ...source,
        required: ['id', 'name'],
        properties: { ...source.properties, ...sourceRef.properties },
      },
      priceRanges: documentedPriceRanges(properties.priceRanges!),
      venue: entityRef,
      attractions: { type: 'array', items: entityRef },
      classifications: {
        ...classifications,
        items: {
          ...classifications.items,
          properties: {
            ...levels,
            segment: withIdOrNames(levels.segment!),
            genre: withIdOrNames(levels.genre!),
            subGenre: withIdOrNames(levels.subGenre!),
          },
        },
      },
    },
  };
}
