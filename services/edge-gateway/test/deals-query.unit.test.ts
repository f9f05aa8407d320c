import { Linter } from 'eslint';
import regexp from 'eslint-plugin-regexp';
import { describe, expect, it } from 'vitest';
import {
  DECIMAL,
  DealsQueryError,
  INTEGER,
  ISO_DATE_TIME,
  parseDealsQuery,
} from '../src/ports/http/families/deals-query.js';

/** Reports of the lint rule that finds super-linear backtracking, for one pattern. */
function backtrackingReports(pattern: RegExp) {
  const linter = new Linter({ configType: 'flat' });
  return linter.verify(`export const p = ${pattern.toString()};`, [
    {
      plugins: { regexp },
      rules: { 'regexp/no-super-linear-backtracking': 'error' },
    },
  ]);
}

const parse = (raw: Record<string, unknown>) => parseDealsQuery(raw, { qa: false });
const errorOf = (raw: Record<string, unknown>) => {
  try {
    parse(raw);
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('deals query parser and ReDoS', () => {
  it('answers 32k-character latitude, longitude and radius values with the documented error', () => {
    const attack = `${'1'.repeat(32_768)}x`;
    for (const name of ['latitude', 'longitude', 'radius']) {
      const raw = { latitude: '1', longitude: '1', [name]: attack };
      const error = errorOf(raw);
      expect(error).toBeInstanceOf(DealsQueryError);
      expect((error as Error).message).toBe(`${name} must be a number`);
    }
    expect((errorOf({ rows: attack }) as Error).message).toBe('rows must be an integer');
    expect((errorOf({ timeRangeStart: `2024-01-01T${'1'.repeat(32_768)}` }) as Error).message).toBe(
      'timeRangeStart must be an ISO 8601 date-time',
    );
  });

  it('uses patterns that are linear by construction (no super-linear backtracking)', () => {
    for (const pattern of [DECIMAL, INTEGER, ISO_DATE_TIME])
      expect(backtrackingReports(pattern), pattern.source).toEqual([]);
    // The check can fail: the pattern this parser used before is reported.
    // eslint-disable-next-line regexp/no-super-linear-backtracking -- the negative control
    const previous = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
    expect(backtrackingReports(previous).map((report) => report.ruleId)).toContain(
      'regexp/no-super-linear-backtracking',
    );
  });

  it('still reads every number form it accepted', () => {
    for (const [text, value] of [
      ['45', 45],
      ['-45.5', -45.5],
      ['+.5', 0.5],
      ['12.', 12],
      ['1e1', 10],
      ['-3.25E-1', -0.325],
    ] as const)
      expect(parse({ latitude: text, longitude: '0' }).near?.latitude).toBe(value);
    for (const text of ['.', '1..2', '1e', 'e1', '--1', '1.2.3', ' ', '0x10'])
      expect(errorOf({ latitude: text, longitude: '0' }), text).toBeInstanceOf(DealsQueryError);
  });

  it('still reads dates with and without a zone', () => {
    expect(parse({ timeRangeStart: '2024-05-01' }).timeRangeStart?.toISOString()).toBe(
      '2024-05-01T00:00:00.000Z',
    );
    expect(parse({ timeRangeStart: '2024-05-01T10:00+0200' }).timeRangeStart?.toISOString()).toBe(
      '2024-05-01T08:00:00.000Z',
    );
    expect(parse({ timeRangeStart: '2024-05-01T10:00:30' }).timeRangeStart?.toISOString()).toBe(
      '2024-05-01T10:00:30.000Z',
    );
  });
});
