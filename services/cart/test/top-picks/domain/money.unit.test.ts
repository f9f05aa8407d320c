import { describe, expect, it } from 'vitest';
import { currencyDigits, parseDecimal, toMajor } from '../../../src/top-picks/domain/money.js';

describe('money', () => {
  it('knows the minor-unit digits of currencies', () => {
    expect(currencyDigits('EUR')).toBe(2);
    expect(currencyDigits('jpy')).toBe(0);
    expect(currencyDigits('KWD')).toBe(3);
  });

  it('renders minor units as the decimal the API shows', () => {
    expect(toMajor({ amountMinor: 2550, currency: 'EUR' })).toBe(25.5);
    expect(toMajor({ amountMinor: 1500, currency: 'JPY' })).toBe(1500);
    expect(toMajor({ amountMinor: 1, currency: 'USD' })).toBe(0.01);
  });

  it('parses decimal filters to minor units and refuses anything else', () => {
    expect(parseDecimal('20', 'EUR')).toBe(2000);
    expect(parseDecimal('80.5', 'EUR')).toBe(8050);
    expect(parseDecimal('0.005', 'EUR')).toBe(1);
    expect(parseDecimal('1500', 'JPY')).toBe(1500);
    for (const bad of ['', '-1', 'abc', '1e3', '1.2.3', ' ', '12,5', 'Infinity']) {
      expect(parseDecimal(bad, 'EUR')).toBeUndefined();
    }
  });
});
