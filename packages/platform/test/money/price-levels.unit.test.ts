import { describe, expect, it } from 'vitest';
import { priceLevelNumber, priceLevelOfNumber } from '../../src/money/index.js';

describe('price level numbers', () => {
  it('a numeric id is its own number', () => {
    expect(priceLevelNumber('7')).toBe(7);
    expect(priceLevelNumber('0012')).toBe(12);
  });

  it('a string id gets a stable 31-bit number apart from small numeric ids', () => {
    const n = priceLevelNumber('PL-BALCONY');
    expect(Number.isInteger(n)).toBe(true);
    expect(n).toBeGreaterThanOrEqual(2 ** 30);
    expect(n).toBeLessThanOrEqual(2 ** 31 - 1);
    expect(priceLevelNumber('PL-BALCONY')).toBe(n);
    expect(priceLevelNumber('PL-FLOOR')).not.toBe(n);
  });

  it('reads a number back to the level it names, whatever the order of the levels', () => {
    const levels = ['PL-FLOOR', 'PL-BALCONY', '3'];
    const balcony = String(priceLevelNumber('PL-BALCONY'));
    expect(priceLevelOfNumber(balcony, levels)).toBe('PL-BALCONY');
    expect(priceLevelOfNumber(balcony, [...levels].reverse())).toBe('PL-BALCONY');
    expect(priceLevelOfNumber('3', levels)).toBe('3');
    expect(priceLevelOfNumber('PL-FLOOR', levels)).toBe('PL-FLOOR');
    expect(priceLevelOfNumber('1', levels)).toBeUndefined();
    expect(priceLevelOfNumber('PL-NONE', levels)).toBeUndefined();
  });

  it('an exact numeric id wins over a level hashed to the same number', () => {
    const hashed = String(priceLevelNumber('PL-BALCONY'));
    expect(priceLevelOfNumber(hashed, ['PL-BALCONY', hashed])).toBe(hashed);
  });
});
