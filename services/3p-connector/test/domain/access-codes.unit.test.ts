import { describe, expect, it } from 'vitest';
import { priceTypesOpenedBy } from '../../src/domain/access-codes.js';

const codes = [
  { priceTypeId: 'VIP', code: 'letmein' },
  { priceTypeId: 'FANCLUB', code: 'letmein' },
  { priceTypeId: 'PRESS', code: 'Pr3ss!' },
];

describe('priceTypesOpenedBy', () => {
  it('answers every price type whose code is exactly the one given', () => {
    expect(priceTypesOpenedBy(codes, 'letmein')).toEqual(['VIP', 'FANCLUB']);
    expect(priceTypesOpenedBy(codes, 'Pr3ss!')).toEqual(['PRESS']);
  });

  it('opens nothing for a wrong, differently cased, padded, prefix or empty code', () => {
    for (const guess of [
      'letme',
      'LETMEIN',
      'letmein ',
      ' letmein',
      'pr3ss!',
      '',
      'letmein\u0000',
    ]) {
      expect(priceTypesOpenedBy(codes, guess), JSON.stringify(guess)).toEqual([]);
    }
  });

  it('never matches a price type stored without a code', () => {
    expect(priceTypesOpenedBy([{ priceTypeId: 'X', code: '' }], '')).toEqual([]);
  });
});
