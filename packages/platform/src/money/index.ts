import { code as isoCurrency, codes as isoCodes } from 'currency-codes';

/**
 * Money of the platform: an integer amount in minor units of an ISO 4217 currency (2550 EUR =
 * 25.50 €, 45500 KWD = 45.500 KD, 1500 JPY = ¥1500). Services keep and add minor units; amounts
 * become decimals only where an API reads or writes them, through the functions below. README.md
 * beside this file says where the exponents come from.
 */
export interface Money {
  amountMinor: number;
  currency: string;
}

/**
 * A currency code that ISO 4217 does not list, or lists without a minor unit (precious metals,
 * fund units, `XXX`): no amount in it can be read or shown. `kind` is the platform's error kind,
 * so a port answers it as bad input (400 / INVALID_ARGUMENT) when it is not caught earlier.
 */
export class UnknownCurrencyError extends Error {
  readonly kind = 'invalid_argument' as const;
  readonly details: { currency: string };

  constructor(readonly currency: string) {
    super(`${JSON.stringify(currency)} is not an ISO 4217 currency with a minor unit`);
    this.name = 'UnknownCurrencyError';
    this.details = { currency };
  }
}

/** ISO 4217 codes whose minor unit is "N.A." (the package lists them with 0 digits). */
const NO_MINOR_UNIT = new Set([
  'XAG',
  'XAU',
  'XBA',
  'XBB',
  'XBC',
  'XBD',
  'XDR',
  'XPD',
  'XPT',
  'XSU',
  'XTS',
  'XUA',
  'XXX',
]);

const exponents = new Map<string, number | null>();

function lookup(currency: string): number | null {
  const code = currency.toUpperCase();
  let exponent = exponents.get(code);
  if (exponent === undefined) {
    const record =
      /^[A-Z]{3}$/.test(code) && !NO_MINOR_UNIT.has(code) ? isoCurrency(code) : undefined;
    exponent = record ? record.digits : null;
    exponents.set(code, exponent);
  }
  return exponent;
}

/**
 * Every ISO 4217 code with a minor unit, upper case and sorted: the currencies an amount can be
 * kept in. Request schemas list them (`enum`), so a document states which codes are accepted.
 */
export const CURRENCY_CODES: readonly string[] = Object.freeze(
  isoCodes()
    .filter((code) => /^[A-Z]{3}$/.test(code) && !NO_MINOR_UNIT.has(code))
    .sort(),
);

/** True when `currency` (any case) is an ISO 4217 code with a minor unit. */
export function isKnownCurrency(currency: string): boolean {
  return lookup(currency) !== null;
}

/**
 * Digits after the decimal point of the currency's amounts (ISO 4217 "minor unit"): EUR 2, JPY 0,
 * KWD 3, IQD 3, IDR 2, HUF 2, CLF 4. Throws {@link UnknownCurrencyError} for any other code.
 */
export function currencyExponent(currency: string): number {
  const exponent = lookup(currency);
  if (exponent === null) throw new UnknownCurrencyError(currency);
  return exponent;
}

/** Minor units → the decimal number a JSON API shows: `45500 KWD` → 45.5, `1500 JPY` → 1500. */
export function toDecimal(amountMinor: number, currency: string): number {
  return Number(toDecimalString(amountMinor, currency));
}

/** {@link toDecimal} of a `Money`; 0 when there is none. */
export const moneyToDecimal = (money: Money | undefined): number =>
  money === undefined ? 0 : toDecimal(money.amountMinor, money.currency);

/**
 * Minor units → the decimal string an API shows, with all the currency's digits: `2550 EUR` →
 * `"25.50"`, `45500 KWD` → `"45.500"`, `-5 USD` → `"-0.05"`, `1500 JPY` → `"1500"`.
 */
export function toDecimalString(amountMinor: number, currency: string): string {
  if (!Number.isSafeInteger(amountMinor))
    throw new RangeError(`an amount in minor units must be a safe integer, got ${amountMinor}`);
  const exponent = currencyExponent(currency);
  const digits = String(Math.abs(amountMinor)).padStart(exponent + 1, '0');
  const whole = exponent === 0 ? digits : digits.slice(0, -exponent);
  const fraction = exponent === 0 ? '' : `.${digits.slice(-exponent)}`;
  return `${amountMinor < 0 ? '-' : ''}${whole}${fraction}`;
}

/** A plain non-negative decimal: up to 15 whole digits and up to 6 decimals. */
const DECIMAL = /^(\d{1,15})(?:\.(\d{1,6}))?$/;

/**
 * A decimal string of an API (`"25.50"`, `"45.5"`, `"1500"`) → minor units, exactly (no floating
 * point). `undefined` when it is not a plain non-negative decimal, has more decimals than the
 * currency, or does not fit a safe integer of minor units. Throws {@link UnknownCurrencyError}.
 */
export function parseDecimal(text: string, currency: string): number | undefined {
  const exponent = currencyExponent(currency);
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const fraction = match[2] ?? '';
  if (fraction.length > exponent) return undefined;
  return minorOf(match[1]!, fraction.padEnd(exponent, '0'), 0);
}

/**
 * Like {@link parseDecimal}, but decimals beyond the currency's are rounded half up (`"20.005"`
 * EUR → 2001): for bounds of a search, never for an amount to charge.
 */
export function parseDecimalRounded(text: string, currency: string): number | undefined {
  const exponent = currencyExponent(currency);
  const match = DECIMAL.exec(text.trim());
  if (!match) return undefined;
  const padded = (match[2] ?? '').padEnd(exponent + 1, '0');
  return minorOf(match[1]!, padded.slice(0, exponent), Number(padded[exponent]) >= 5 ? 1 : 0);
}

function minorOf(whole: string, fraction: string, carry: number): number | undefined {
  const minor = Number(whole + fraction) + carry;
  return Number.isSafeInteger(minor) ? minor : undefined;
}

/**
 * A JSON number amount (`45.5`) → minor units; `undefined` when it is negative, not finite, has
 * more precision than the currency, or is too large. Throws {@link UnknownCurrencyError}.
 */
export function decimalNumberToMinor(value: number, currency: string): number | undefined {
  const exponent = currencyExponent(currency);
  if (!Number.isFinite(value) || value < 0) return undefined;
  const scaled = value * 10 ** exponent;
  const minor = Math.round(scaled);
  if (Math.abs(scaled - minor) > 1e-6 || !Number.isSafeInteger(minor)) return undefined;
  return minor;
}

/**
 * A JSON number amount → minor units, rounded half up to the currency's unit (`45.5004` KWD →
 * 45500): for amounts a schema already bounded. Throws {@link UnknownCurrencyError}.
 */
export function roundToMinor(value: number, currency: string): number {
  return Math.round(value * 10 ** currencyExponent(currency));
}

export {
  applyBps,
  DEFAULT_FEES,
  orderFees,
  ticketFees,
  ticketPrice,
  type FeeSchedule,
  type TicketPrice,
} from './pricing.js';
export { priceLevelNumber, priceLevelOfNumber } from './price-levels.js';
