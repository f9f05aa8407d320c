import type { DealExclusivity, DealSearchQuery, RadiusUnit } from '../../../app/deals.js';

/**
 * The query string of a deals search → a DealSearchQuery with the deals API's defaults
 * (exclusivities both, startRow 0, rows 25 (max 500), country US, radius 10,
 * radiusUnit kilometers). Anything unacceptable throws kind `invalid_argument`, which the deals
 * family answers 406 `{message, statusCode}`. Market ids are checked against the market table by
 * the deals service, which owns it.
 */

export class DealsQueryError extends Error {
  readonly kind = 'invalid_argument';
}

type Raw = Record<string, unknown>;

const bad = (message: string) => new DealsQueryError(message);

/**
 * Longest text a numeric or date parameter may have. Checked before any pattern runs, so no
 * pattern ever sees a long input; the patterns are also unambiguous (each character can be
 * matched one way only: linear time by construction, and `regexp/no-super-linear-backtracking`
 * checks it in lint).
 */
export const MAX_NUMBER_LENGTH = 32;
export const MAX_DATE_TIME_LENGTH = 40;

/** An integer: optional minus sign, digits. */
export const INTEGER = /^-?\d+$/;
/**
 * A decimal: sign, digits with an optional fraction, or a bare fraction, then an optional
 * exponent. (`\d+\.?\d*` would let two digit runs share the digits between them: quadratic
 * backtracking on a long run of digits followed by a wrong character.)
 */
export const DECIMAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

/** A parameter's raw values (a repeated key gives several); empty values are absent. */
function given(raw: Raw, name: string): string[] {
  const value = raw[name];
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.map((v) => String(v).trim()).filter((v) => v.length > 0);
}

/** A list parameter: repeated keys and comma-separated lists both work. */
function values(raw: Raw, name: string): string[] {
  return given(raw, name)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
}

/** A single-valued parameter, taken whole (a city may contain a comma). */
function single(raw: Raw, name: string): string | undefined {
  const list = given(raw, name);
  if (list.length > 1) throw bad(`${name} must be given once`);
  return list[0];
}

/** Whether the parameter came, but only with blank values (a number cannot be blank). */
const blank = (raw: Raw, name: string) => raw[name] !== undefined && given(raw, name).length === 0;

function integer(raw: Raw, name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  if (blank(raw, name)) throw bad(`${name} must be an integer`);
  const text = single(raw, name);
  if (text === undefined) return undefined;
  if (text.length > MAX_NUMBER_LENGTH || !INTEGER.test(text))
    throw bad(`${name} must be an integer`);
  const value = Number(text);
  if (value < min || value > max) throw bad(`${name} must be from ${min} to ${max}`);
  return value;
}

function decimal(raw: Raw, name: string, min: number, max: number, exclusiveMin = false) {
  if (blank(raw, name)) throw bad(`${name} must be a number`);
  const text = single(raw, name);
  if (text === undefined) return undefined;
  if (text.length > MAX_NUMBER_LENGTH || !DECIMAL.test(text)) throw bad(`${name} must be a number`);
  const value = Number(text);
  if (value < min || value > max || (exclusiveMin && value === min))
    throw bad(
      `${name} must be ${exclusiveMin ? 'greater than' : 'from'} ${min} ${exclusiveMin ? 'and at most' : 'to'} ${max}`,
    );
  return value;
}

/**
 * ISO 8601 date or date-time, with the ranges a date-time can have (month 01-12, day 01-31, hour
 * 00-23, minute and second 00-59, a zone within a day): what `Date` then reads as an instant (a
 * 31st of a shorter month rolls over, as `Date` does). The OpenAPI document states this pattern.
 */
export const ISO_DATE_TIME =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?:T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?)?$/;
/** The zone at the end of a date-time that passed ISO_DATE_TIME. */
const ZONE = /(?:Z|[+-]\d{2}:?\d{2})$/;

/** ISO 8601 date or date-time; without a zone it is UTC (the deals API speaks UTC). */
function dateTime(raw: Raw, name: string): Date | undefined {
  const text = single(raw, name);
  if (text === undefined) return undefined;
  if (text.length > MAX_DATE_TIME_LENGTH || !ISO_DATE_TIME.test(text))
    throw bad(`${name} must be an ISO 8601 date-time`);
  const zoned =
    text.includes('T') && ZONE.test(text)
      ? text
      : text.includes('T')
        ? `${text}Z`
        : `${text}T00:00:00Z`;
  const value = new Date(zoned.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  if (Number.isNaN(value.getTime())) throw bad(`${name} is not a valid date-time`);
  return value;
}

function oneOf<T extends string>(text: string, allowed: readonly T[], name: string): T {
  const found = allowed.find((a) => a.toLowerCase() === text.toLowerCase());
  if (!found) throw bad(`${name} must be one of ${allowed.join(', ')}`);
  return found;
}

export const MAX_ROWS = 500;

export function parseDealsQuery(
  raw: Raw,
  scope: { dealId?: string; qa: boolean },
): DealSearchQuery {
  const exclusivities = values(raw, 'exclusivities').map((v) =>
    oneOf<DealExclusivity>(v, ['EXCLUSIVE', 'NONEXCLUSIVE'], 'exclusivities'),
  );
  const marketIds = values(raw, 'marketIds').map((v) => {
    if (!/^\d{1,9}$/.test(v)) throw bad('marketIds must be market ids (integers)');
    return Number(v);
  });
  const country = single(raw, 'country') ?? 'US';
  if (!/^[A-Za-z]{2}$/.test(country)) throw bad('country must be a two-letter country code');
  const city = single(raw, 'city');
  const state = single(raw, 'state');
  // Counted as given, blanks included: what the OpenAPI document's maxLength says.
  for (const [name, value] of [
    ['city', city],
    ['state', state],
  ] as const) {
    const text = raw[name];
    if ([...(typeof text === 'string' ? text : (value ?? ''))].length > 100)
      throw bad(`${name} is longer than 100 characters`);
  }
  const latitude = decimal(raw, 'latitude', -90, 90);
  const longitude = decimal(raw, 'longitude', -180, 180);
  if ((latitude === undefined) !== (longitude === undefined))
    throw bad('latitude and longitude must be given together');
  const radius = decimal(raw, 'radius', 0, 20_038, true) ?? 10;
  const unitText = single(raw, 'radiusUnit');
  const unit: RadiusUnit = unitText
    ? oneOf<RadiusUnit>(unitText, ['miles', 'kilometers'], 'radiusUnit')
    : 'kilometers';
  const ids = {
    majorGenreId: integer(raw, 'majorGenreId', 1),
    minorGenreId: integer(raw, 'minorGenreId', 1),
    venueId: integer(raw, 'venueId', 1),
    attractionId: integer(raw, 'attractionId', 1),
  };
  const timeRangeStart = dateTime(raw, 'timeRangeStart');
  const timeRangeEnd = dateTime(raw, 'timeRangeEnd');
  if (timeRangeStart && timeRangeEnd && timeRangeStart > timeRangeEnd)
    throw bad('timeRangeStart must not be after timeRangeEnd');
  return {
    ...(scope.dealId !== undefined ? { dealId: scope.dealId } : {}),
    exclusivities:
      exclusivities.length > 0 ? [...new Set(exclusivities)] : ['EXCLUSIVE', 'NONEXCLUSIVE'],
    marketIds: [...new Set(marketIds)],
    country: country.toUpperCase(),
    ...(city !== undefined ? { city } : {}),
    ...(state !== undefined ? { state } : {}),
    ...(latitude !== undefined && longitude !== undefined
      ? { near: { latitude, longitude, radius, unit } }
      : {}),
    ...Object.fromEntries(Object.entries(ids).filter(([, v]) => v !== undefined)),
    ...(timeRangeStart ? { timeRangeStart } : {}),
    ...(timeRangeEnd ? { timeRangeEnd } : {}),
    startRow: integer(raw, 'startRow', 0, 1_000_000_000) ?? 0,
    rows: integer(raw, 'rows', 1, MAX_ROWS) ?? 25,
    qa: scope.qa,
  };
}
