import { describe, expect, it } from 'vitest';
import { backoffMs, failureOpensCase, openCase, reopenCase } from '../../src/domain/case.js';
import type { Transaction } from '../../src/domain/transaction.js';

const t: Transaction = {
  id: 'cart-1',
  cartId: 'cart-1',
  eventId: 'ev-1',
  partnerId: 'p-1',
  phase: 'unknown',
  staleChecked: false,
  lastActivityAt: new Date(0),
};
const at = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s));
const fresh = (observedAt: Date) =>
  openCase({
    transaction: t,
    trigger: 'PARTNER_CALL_FAILED',
    observedAt,
    dueAt: observedAt,
    now: observedAt,
    detail: 'd',
  });

describe('cases', () => {
  it('opens for creates with an unknown outcome and for failed releases only', () => {
    expect(failureOpensCase('CREATE_BOOKING', true)).toBe(true);
    expect(failureOpensCase('CREATE_ORDER', true)).toBe(true);
    expect(failureOpensCase('RELEASE_BOOKING', false)).toBe(true);
    expect(failureOpensCase('CREATE_BOOKING', false)).toBe(false);
    expect(failureOpensCase('CANCEL_ORDER', true)).toBe(false);
    expect(failureOpensCase('OTHER', true)).toBe(false);
  });

  it('derives the case id from the transaction: one case per transaction', () => {
    expect(fresh(at(1)).id).toBe('rc-cart-1');
  });

  it('ignores a redelivered failure and reopens a decided case for a newer one', () => {
    const decided = {
      ...fresh(at(1)),
      open: false,
      outcome: 'CONSISTENT' as const,
      resolvedAt: at(40),
    };
    expect(reopenCase(decided, fresh(at(1)))).toBeUndefined();
    const sut = reopenCase(decided, fresh(at(50)));
    expect(sut).toMatchObject({ open: true, outcome: 'OPEN', observedAt: at(50), openedAt: at(1) });
    expect(sut).not.toHaveProperty('resolvedAt');
  });

  it('backs off exponentially up to the cap', () => {
    expect([1, 2, 3, 10].map((n) => backoffMs(n, 1_000, 5_000))).toEqual([
      1_000, 2_000, 4_000, 5_000,
    ]);
  });
});
