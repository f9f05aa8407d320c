import { describe, expect, it } from 'vitest';
import {
  checkChannel,
  checkDeliveryMethod,
  checkLanguage,
  checkPaymentMethod,
  parseAction,
  parseAmount,
  parseDateTime,
  parseDetail,
  parsePageNumber,
  parsePageSize,
  parseSort,
} from '../../src/ports/http/parse.js';
import { refusal } from '../fixtures.js';

describe('validation of values the 3P API types as strings', () => {
  it('names each bad value with its own id (400)', () => {
    expect(refusal(() => checkLanguage('EN'))).toEqual({ status: 400, id: 110 });
    expect(refusal(() => checkChannel('FAX'))).toEqual({ status: 400, id: 111 });
    expect(refusal(() => checkPaymentMethod('GOLD'))).toEqual({ status: 400, id: 112 });
    expect(refusal(() => checkDeliveryMethod('PIGEON'))).toEqual({ status: 400, id: 113 });
    expect(refusal(() => parseAction('BURN'))).toEqual({ status: 400, id: 204 });
    expect(refusal(() => parseSort('price'))).toEqual({ status: 400, id: 205 });
    expect(refusal(() => parseAmount('12.50'))).toEqual({ status: 400, id: 207 });
    expect(refusal(() => parseDateTime('yesterday', 'x'))).toEqual({ status: 400, id: 213 });
    expect(refusal(() => parseDateTime('2030-01-01T10:00:00', 'x'))).toEqual({
      status: 400,
      id: 213,
    });
    expect(refusal(() => parsePageSize('101'))).toEqual({ status: 400, id: 214 });
    expect(refusal(() => parsePageSize('0'))).toEqual({ status: 400, id: 214 });
    expect(refusal(() => parsePageNumber('-1'))).toEqual({ status: 400, id: 215 });
    expect(refusal(() => parseDetail('everything'))).toEqual({ status: 400, id: 216 });
  });

  it('accepts good values and applies defaults', () => {
    expect(() => checkLanguage('fr-fr')).not.toThrow();
    expect(() => checkLanguage(undefined)).not.toThrow();
    expect(parseSort(undefined)).toBe('DATE,NAME');
    expect(parseSort('Name,Date')).toBe('NAME,DATE');
    expect(parsePageSize(undefined)).toBe(20);
    expect(parsePageSize('100')).toBe(100);
    expect(parsePageNumber(undefined)).toBe(0);
    expect(parseDetail(undefined)).toBe('overview');
    expect(parseAmount('4500')).toBe(4500);
    expect(parseDateTime('2030-01-01T10:00:00+02:00', 'x').toISOString()).toBe(
      '2030-01-01T08:00:00.000Z',
    );
  });
});
