import { describe, expect, it } from 'vitest';
import { decide, type PartnerTransaction } from '../../src/domain/decision.js';
import type { Transaction } from '../../src/domain/transaction.js';

const now = new Date('2030-03-01T12:00:00Z');
const settledBefore = new Date(now.getTime() - 30_000);
const longAgo = new Date(now.getTime() - 10 * 60_000);

const held = (over: Partial<Transaction> = {}): Transaction => ({
  id: 'cart-1',
  cartId: 'cart-1',
  eventId: 'ev-1',
  partnerId: 'p-1',
  inventoryToken: 'tok-1',
  heldAt: longAgo,
  expiresAt: new Date(now.getTime() + 5 * 60_000),
  phase: 'held',
  staleChecked: false,
  lastActivityAt: longAgo,
  ...over,
});
const paid = (over: Partial<Transaction> = {}): Transaction =>
  held({
    orderId: 'ord-1',
    inventoryOrderId: 'inv-ord-1',
    confirmedAt: longAgo,
    phase: 'confirmed',
    ...over,
  });
const booking = (over: Partial<PartnerTransaction> = {}): PartnerTransaction => ({
  partnerId: 'p-1',
  eventId: 'ev-1',
  inventoryToken: 'tok-1',
  status: 'BOOKED',
  cartId: 'cart-1',
  createdAt: longAgo,
  updatedAt: longAgo,
  ...over,
});
const order = (over: Partial<PartnerTransaction> = {}): PartnerTransaction =>
  booking({ status: 'CONFIRMED', inventoryOrderId: 'inv-ord-1', orderId: 'ord-1', ...over });

const sut = (platform: Transaction | undefined, partner: PartnerTransaction[]) =>
  decide({ platform, partner, now, settledBefore });

describe('decide', () => {
  it('is CONSISTENT when nothing is held or sold at the partner and nothing was paid', () => {
    expect(sut(undefined, [])).toMatchObject({ outcome: 'CONSISTENT', actions: [] });
    expect(sut(held(), [booking({ status: 'RELEASED' })])).toMatchObject({
      outcome: 'CONSISTENT',
      actions: [],
    });
    expect(sut(undefined, [order({ status: 'CANCELLED' })]).outcome).toBe('CONSISTENT');
  });

  it('is CONSISTENT when the partner holds the booking the platform holds', () => {
    expect(sut(held(), [booking()])).toMatchObject({
      outcome: 'CONSISTENT',
      matched: 1,
      actions: [],
    });
  });

  it('is CONSISTENT when the partner confirmed the order the platform sold', () => {
    expect(sut(paid(), [order()])).toMatchObject({ outcome: 'CONSISTENT', matched: 1 });
    expect(sut(paid(), [order({ status: 'PRINTED' })]).outcome).toBe('CONSISTENT');
  });

  it('releases a booking the platform does not hold (BOOKING_RELEASED)', () => {
    const decision = sut(undefined, [booking()]);
    expect(decision.outcome).toBe('BOOKING_RELEASED');
    expect(decision.actions).toEqual([
      { kind: 'release-booking', eventId: 'ev-1', inventoryToken: 'tok-1' },
    ]);
    expect(decision.detail).toContain('released orphan booking tok-1');
  });

  it('releases a booking whose platform hold expired', () => {
    const expired = held({ expiresAt: new Date(now.getTime() - 60_000) });
    expect(sut(expired, [booking()]).outcome).toBe('BOOKING_RELEASED');
  });

  it('releases a stray booking of a cart that now holds another one, keeping the live one', () => {
    const decision = sut(held({ inventoryToken: 'tok-2' }), [
      booking(),
      booking({ inventoryToken: 'tok-2' }),
    ]);
    expect(decision).toMatchObject({ outcome: 'BOOKING_RELEASED', matched: 1 });
    expect(decision.actions).toEqual([
      { kind: 'release-booking', eventId: 'ev-1', inventoryToken: 'tok-1' },
    ]);
  });

  it('cancels an order the platform did not sell (ORDER_CANCELLED)', () => {
    const decision = sut(held(), [order()]);
    expect(decision.outcome).toBe('ORDER_CANCELLED');
    expect(decision.actions).toEqual([
      { kind: 'cancel-order', eventId: 'ev-1', inventoryOrderId: 'inv-ord-1', orderId: 'ord-1' },
    ]);
  });

  it('cancels an order the platform cancelled but the partner still has', () => {
    const cancelled = paid({ cancelledAt: longAgo, phase: 'cancelled' });
    expect(sut(cancelled, [order()]).outcome).toBe('ORDER_CANCELLED');
  });

  it('flags a paid order missing at the partner for an operator (MANUAL)', () => {
    const decision = sut(paid(), []);
    expect(decision).toMatchObject({ outcome: 'MANUAL', missingAtPartner: true, actions: [] });
    expect(decision.detail).toContain('order ord-1 was paid on the platform');
    expect(decision.detail).toContain('no confirmed order');
  });

  it('flags a paid order whose booking is still only BOOKED at the partner, without releasing it', () => {
    const decision = sut(paid(), [booking()]);
    expect(decision).toMatchObject({ outcome: 'MANUAL', missingAtPartner: true, actions: [] });
    expect(decision.detail).toContain('still only BOOKED');
  });

  it('flags a paid order the partner cancelled', () => {
    expect(sut(paid(), [order({ status: 'CANCELLED' })]).outcome).toBe('MANUAL');
  });

  it('does not judge partner transactions that changed within the grace period', () => {
    const recent = new Date(now.getTime() - 1_000);
    const decision = sut(undefined, [booking({ createdAt: recent, updatedAt: recent })]);
    expect(decision).toMatchObject({ outcome: 'CONSISTENT', inFlight: 1, actions: [] });
  });
});
