import { describe, expect, it } from 'vitest';
import {
  CURRENCY_CODES,
  currencyExponent,
  decimalNumberToMinor,
  isKnownCurrency,
  parseDecimal,
  parseDecimalRounded,
  roundToMinor,
  toDecimal,
  toDecimalString,
  UnknownCurrencyError,
} from '../../src/money/index.js';

describe('money: ISO 4217 exponents', () => {
  // The currencies the services used to disagree on, and the common cases.
  it.each([
    ['KWD', 3],
    ['JPY', 0],
    ['IDR', 2],
    ['IQD', 3],
    ['HUF', 2],
    ['EUR', 2],
    ['USD', 2],
    ['BHD', 3],
    ['CLP', 0],
    ['CLF', 4],
    ['kwd', 3],
  ])('%s has %i decimals', (currency, exponent) => {
    expect(currencyExponent(currency)).toBe(exponent);
    expect(isKnownCurrency(currency)).toBe(true);
  });

  it.each(['', 'EU', 'ZZZ', 'XAU', 'XXX', 'XTS', 'EURO', '€'])(
    '%j is refused with a clear error, not read as 2 decimals',
    (currency) => {
      expect(isKnownCurrency(currency)).toBe(false);
      expect(() => currencyExponent(currency)).toThrow(UnknownCurrencyError);
      expect(() => toDecimal(100, currency)).toThrow(/not an ISO 4217 currency/);
      expect(() => parseDecimal('1', currency)).toThrow(UnknownCurrencyError);
      const error = (() => {
        try {
          currencyExponent(currency);
        } catch (e) {
          return e as UnknownCurrencyError;
        }
      })();
      expect(error?.kind).toBe('invalid_argument');
      expect(error?.details).toEqual({ currency });
    },
  );

  it('lists exactly the codes it accepts, for request schemas to enumerate', () => {
    expect(CURRENCY_CODES).toEqual([...CURRENCY_CODES].sort());
    expect(CURRENCY_CODES).toEqual(expect.arrayContaining(['EUR', 'JPY', 'KWD', 'USD', 'CLF']));
    for (const code of CURRENCY_CODES) expect(isKnownCurrency(code), code).toBe(true);
    for (const refused of ['XAU', 'XXX', 'XTS', 'AAA'])
      expect(CURRENCY_CODES).not.toContain(refused);
    expect(CURRENCY_CODES.length).toBeGreaterThan(150);
  });
});

describe('money: minor units ↔ decimals', () => {
  it.each([
    // minor, currency, decimal string, decimal number
    [45_500, 'KWD', '45.500', 45.5],
    [1_500, 'JPY', '1500', 1500],
    [150_000_000, 'IDR', '1500000.00', 1_500_000],
    [2_550, 'EUR', '25.50', 25.5],
    [25_000, 'IQD', '25.000', 25],
    [1_234_500, 'HUF', '12345.00', 12_345],
    [5, 'USD', '0.05', 0.05],
    [-5, 'USD', '-0.05', -0.05],
    [0, 'KWD', '0.000', 0],
    [12_345, 'CLF', '1.2345', 1.2345],
  ])('%i %s ↔ %s', (minor, currency, text, number) => {
    expect(toDecimalString(minor, currency)).toBe(text);
    expect(toDecimal(minor, currency)).toBe(number);
    if (minor >= 0) {
      expect(parseDecimal(text, currency)).toBe(minor);
      expect(decimalNumberToMinor(number, currency)).toBe(minor);
      expect(roundToMinor(number, currency)).toBe(minor);
    }
  });

  it('reads fewer decimals than the currency has', () => {
    expect(parseDecimal('45.5', 'KWD')).toBe(45_500);
    expect(parseDecimal('25', 'EUR')).toBe(2_500);
    expect(parseDecimal('0.1', 'EUR')).toBe(10);
  });

  it('refuses more decimals than the currency has, and anything not a plain decimal', () => {
    expect(parseDecimal('1.005', 'USD')).toBeUndefined();
    expect(parseDecimal('1500.5', 'JPY')).toBeUndefined();
    expect(parseDecimal('45.5001', 'KWD')).toBeUndefined();
    for (const text of ['', '-1', '1e3', ' 1', '1.', '.5', '1,50', 'NaN'])
      expect(parseDecimal(text, 'EUR')).toBeUndefined();
    expect(decimalNumberToMinor(0.005, 'EUR')).toBeUndefined();
    expect(decimalNumberToMinor(-1, 'EUR')).toBeUndefined();
    expect(decimalNumberToMinor(Number.NaN, 'EUR')).toBeUndefined();
  });

  it('refuses amounts beyond a safe integer of minor units', () => {
    expect(parseDecimal('999999999999999', 'KWD')).toBeUndefined();
    expect(() => toDecimalString(2 ** 60, 'EUR')).toThrow(RangeError);
  });

  it('rounds search bounds half up to the currency', () => {
    expect(parseDecimalRounded('20.005', 'EUR')).toBe(2_001);
    expect(parseDecimalRounded('20.004', 'EUR')).toBe(2_000);
    expect(parseDecimalRounded('1500.5', 'JPY')).toBe(1_501);
    expect(parseDecimalRounded('45.5', 'KWD')).toBe(45_500);
    expect(parseDecimalRounded('x', 'EUR')).toBeUndefined();
  });
});
