import { describe, expect, it } from 'vitest';
import {
  MAX_SHOWN_PRICES,
  SESSION_ID_PATTERN,
  priceForFan,
  recordShownPrices,
  resolveSession,
  shownPrice,
  type FanSession,
} from '../../../src/top-picks/domain/fan-session.js';

const HOUR = 3_600_000;
const t0 = new Date('2030-05-01T10:00:00Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
let counter = 0;
const context = (now: Date) => ({
  appId: 'app-1',
  now,
  ttlMs: HOUR,
  newId: () => `sid-${++counter}`,
});
const eur = (amountMinor: number) => ({ amountMinor, currency: 'EUR' });

describe('fan session rules', () => {
  it('creates a session with a new id when none is presented', () => {
    const { session, outcome } = resolveSession(undefined, context(t0));
    expect(outcome).toBe('created');
    expect(session.id).toMatch(/^sid-\d+$/);
    expect(session.startedAt).toEqual(t0);
    expect(session.expiresAt).toEqual(at(HOUR));
    expect(session.appId).toBe('app-1');
    expect(session.shownPrices).toEqual([]);
  });

  it('returns a live session as it is', () => {
    const { session: created } = resolveSession(undefined, context(t0));
    const { session, outcome } = resolveSession(created, context(at(HOUR - 1)));
    expect(outcome).toBe('active');
    expect(session).toBe(created);
  });

  it('renews an expired session under the same id and forgets its prices', () => {
    const { session: created } = resolveSession(undefined, context(t0));
    const withPrice = recordShownPrices(created, [{ key: 'L1', ...eur(5000) }], t0)!;
    const { session, outcome } = resolveSession(withPrice, context(at(HOUR)));
    expect(outcome).toBe('renewed');
    expect(session.id).toBe(created.id);
    expect(session.startedAt).toEqual(at(HOUR));
    expect(session.expiresAt).toEqual(at(2 * HOUR));
    expect(session.createdAt).toEqual(t0);
    expect(session.renewals).toBe(1);
    expect(session.shownPrices).toEqual([]);
  });

  it('accepts only ids of the issued shape', () => {
    expect(SESSION_ID_PATTERN.test('a'.repeat(43))).toBe(true);
    expect(SESSION_ID_PATTERN.test('a'.repeat(42))).toBe(false);
    expect(SESSION_ID_PATTERN.test(`${'a'.repeat(42)}.`)).toBe(false);
  });
});

describe('prices shown under a session', () => {
  const base: FanSession = resolveSession(undefined, context(t0)).session;

  it('keeps the first price unless a lower one is shown later', () => {
    const one = recordShownPrices(base, [{ key: 'L1', ...eur(5000) }], t0)!;
    expect(recordShownPrices(one, [{ key: 'L1', ...eur(6000) }], at(1))).toBeUndefined();
    const lower = recordShownPrices(one, [{ key: 'L1', ...eur(4000) }], at(2))!;
    expect(shownPrice(lower, 'L1', at(3))).toEqual(eur(4000));
  });

  it('reports a recorded price only while the session is live', () => {
    const one = recordShownPrices(base, [{ key: 'L1', ...eur(5000) }], t0)!;
    expect(shownPrice(one, 'L1', at(HOUR - 1))).toEqual(eur(5000));
    expect(shownPrice(one, 'L1', at(HOUR))).toBeUndefined();
    expect(shownPrice(one, 'L2', t0)).toBeUndefined();
    expect(shownPrice(undefined, 'L1', t0)).toBeUndefined();
  });

  it('gives the fan the lower of the recorded and the asking price', () => {
    const one = recordShownPrices(base, [{ key: 'L1', ...eur(5000) }], t0)!;
    expect(priceForFan(one, 'L1', eur(7000), at(10))).toEqual(eur(5000));
    expect(priceForFan(one, 'L1', eur(3000), at(10))).toEqual(eur(3000));
    // Expired: the asking price.
    expect(priceForFan(one, 'L1', eur(7000), at(HOUR))).toEqual(eur(7000));
    expect(priceForFan(undefined, 'L1', eur(7000), t0)).toEqual(eur(7000));
  });

  it('keeps at most the most recent prices', () => {
    const many = Array.from({ length: MAX_SHOWN_PRICES + 5 }, (_, i) => ({
      key: `L${i}`,
      ...eur(100 + i),
    }));
    const recorded = recordShownPrices(base, many, t0)!;
    expect(recorded.shownPrices).toHaveLength(MAX_SHOWN_PRICES);
    expect(recorded.shownPrices[0]!.key).toBe('L5');
  });
});
