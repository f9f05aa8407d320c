import { describe, expect, it } from 'vitest';
import type { HeldTicket } from '../../src/domain/booking.js';
import type { Order } from '../../src/domain/order.js';
import {
  partialRefundKey,
  planTicketCancel,
  withTicketsCancelled,
} from '../../src/domain/partial-cancel.js';
import {
  DEFAULT_FEES,
  priceCart,
  ticketPrice,
  type FeeSchedule,
} from '../../src/domain/pricing.js';
import { DEFAULT_SHIPPING } from '../../src/domain/shipping.js';

const NOW = new Date('2030-06-01T12:00:00Z');

/** An order of tickets at `faces`, priced by the cart's own pricing, captured in full. */
function orderOf(currency: string, faces: number[], fees: FeeSchedule): Order {
  const tickets = faces.map((face, i) => ({
    ticketId: `T${i + 1}`,
    areaId: 'A1',
    section: 'S1',
    row: 'R1',
    seat: String(i + 1),
    priceLevelId: 'PL1',
    priceTypeId: '000001',
    faceValueMinor: face,
    generalAdmission: false,
  }));
  const priced = priceCart({
    tickets: tickets as unknown as HeldTicket[],
    fees,
    delivery: DEFAULT_SHIPPING,
  });
  const grand = priced.totals.grand;
  return {
    id: 'ord-1',
    orderNumber: 'MQ-AAAA-BBBB',
    cartId: 'cart-1',
    appId: 'app-1',
    channel: 'partner-cart',
    eventId: 'ev-1',
    partnerId: 'p-1',
    sandbox: false,
    inventoryToken: 'tok',
    inventoryOrderId: 'O-tok',
    status: 'CONFIRMED',
    currency,
    tickets,
    fees,
    merchandiseMinor: priced.totals.merchandise,
    feeMinor: priced.totals.fee,
    taxMinor: priced.totals.tax,
    deliveryMinor: priced.totals.delivery,
    grandMinor: grand,
    delivery: DEFAULT_SHIPPING,
    paymentId: 'pi_1',
    payment: {
      provider: 'stripe',
      paymentId: 'pi_1',
      authorizedMinor: grand,
      capturedMinor: grand,
      refundedMinor: 0,
      refunds: [],
    },
    customerEmail: '',
    thirdPartyAccountId: '',
    secureEntryEnabled: true,
    tokenSha256: '',
    confirmedAt: NOW,
  };
}

const cancelOf = (order: Order, ids: string[]) => {
  const plan = planTicketCancel(order, ids, 'requested', order.fees!);
  if (plan.kind !== 'cancel') throw new Error('expected a cancel');
  return {
    plan,
    next: withTicketsCancelled(order, plan, { reason: 'requested', detail: '', now: NOW }),
  };
};

describe('the refund of a partial cancel', () => {
  it("is the tickets' ticketPrice share in JPY (no minor unit), order fees only with the last", () => {
    // JPY: 1 minor unit = ¥1. A processing fee of ¥300 (its tax ¥60) is the order's.
    const fees = { ...DEFAULT_FEES, serviceFeeMinMinor: 200, processingFeeMinor: 300 };
    const order = orderOf('JPY', [5_000, 5_000, 7_777], fees);
    const first = cancelOf(order, ['T3']);
    // ¥7777 + 10 % fee rounded half up (778) + 20 % tax on it (156) = ¥8711.
    expect(ticketPrice(7_777, fees).totalMinor).toBe(8_711);
    expect(first.plan.owed).toEqual({
      key: 'order:ord-1:T3',
      amountMinor: 8_711,
      ticketIds: ['T3'],
    });
    expect(first.plan.last).toBe(false);
    expect(first.next.status).toBe('CONFIRMED');
    // The last two: their share plus the processing fee, its tax and the delivery.
    const last = cancelOf(first.next, ['T2', 'T1']);
    expect(last.plan.last).toBe(true);
    expect(last.plan.owed?.key).toBe('order:ord-1:T1,T2');
    expect(last.plan.owed?.amountMinor).toBe(order.grandMinor - 8_711);
    expect(last.plan.owed?.amountMinor).toBe(
      2 * ticketPrice(5_000, fees).totalMinor + 300 + 60 + order.deliveryMinor,
    );
    expect(last.next.status).toBe('CANCELLED');
    // Both debts are owed, oldest first, and together they are what was captured.
    expect(last.next.refundsOwed?.map((o) => o.amountMinor)).toEqual([
      8_711,
      order.grandMinor - 8_711,
    ]);
  });

  it("is exact in KWD (3 decimals): 12.345 KD with its fee and the fee's tax", () => {
    const fees = { ...DEFAULT_FEES, serviceFeeMinMinor: 500, processingFeeMinor: 1_000 };
    const order = orderOf('KWD', [12_345, 20_000], fees);
    const { plan } = cancelOf(order, ['T1']);
    // 12.345 + 1.235 (10 %, half up from 1.2345) + 0.247 (20 % of 1.235) = 13.827 KD.
    expect(plan.owed?.amountMinor).toBe(12_345 + 1_235 + 247);
  });

  it('never owes more than is captured and not refunded or owed already', () => {
    const order = orderOf('GBP', [2_000, 2_000], DEFAULT_FEES);
    const refundedAtStripe: Order = {
      ...order,
      payment: { ...order.payment!, refundedMinor: order.grandMinor - 100 },
    };
    expect(cancelOf(refundedAtStripe, ['T1']).plan.owed?.amountMinor).toBe(100);
  });

  it('owes nothing on a disputed payment, and still cancels the tickets', () => {
    const order = orderOf('GBP', [2_000, 2_000], DEFAULT_FEES);
    const disputed: Order = {
      ...order,
      payment: { ...order.payment!, dispute: { disputeId: 'dp_1', reason: 'fraud', at: NOW } },
    };
    const { plan, next } = cancelOf(disputed, ['T1']);
    expect(plan.owed).toBeUndefined();
    expect(next.tickets[0]?.cancelledAt).toEqual(NOW);
    expect(next.refundsOwed).toBeUndefined();
  });
});

describe('a partial cancel request', () => {
  const order = orderOf('EUR', [2_000, 3_000, 4_000], DEFAULT_FEES);

  it('refuses ticket ids the order does not have (invalid_argument, listing them)', () => {
    expect(() => planTicketCancel(order, ['T1', 'nope'], 'requested', DEFAULT_FEES)).toThrow(
      expect.objectContaining({
        kind: 'invalid_argument',
        details: expect.objectContaining({ ticket_ids: ['nope'], field: 'ticket_ids' }),
      }),
    );
  });

  it('is a repeat when it names exactly the tickets of an earlier cancel, in any order', () => {
    const { next } = cancelOf(order, ['T2', 'T1']);
    expect(planTicketCancel(next, ['T1', 'T2', 'T1'], 'requested', DEFAULT_FEES)).toEqual({
      kind: 'repeat',
    });
  });

  it('refuses a ticket cancelled already by another request (failed_precondition)', () => {
    const { next } = cancelOf(order, ['T1']);
    expect(() => planTicketCancel(next, ['T1', 'T2'], 'requested', DEFAULT_FEES)).toThrow(
      expect.objectContaining({ kind: 'failed_precondition' }),
    );
  });

  it('refuses any ticket of an order cancelled whole', () => {
    const cancelled: Order = { ...order, status: 'CANCELLED' };
    expect(() => planTicketCancel(cancelled, ['T1'], 'requested', DEFAULT_FEES)).toThrow(
      expect.objectContaining({ kind: 'failed_precondition' }),
    );
  });

  it('refuses an order whose totals are not its tickets priced with the fee schedule', () => {
    const other = { ...DEFAULT_FEES, serviceFeeBps: 1_500 };
    expect(() => planTicketCancel(order, ['T1'], 'requested', other)).toThrow(
      expect.objectContaining({ kind: 'failed_precondition' }),
    );
  });

  it('keys its refund by the sorted tickets, hashed when that is too long for Stripe', () => {
    expect(partialRefundKey('o', ['a', 'b'])).toBe('order:o:a,b');
    const many = Array.from({ length: 40 }, (_, i) => `ticket-${String(i).padStart(4, '0')}`);
    const key = partialRefundKey('o', many);
    expect(key).toMatch(/^order:o:sha256:[0-9a-f]{64}$/);
    expect(`refund:${key}`.length).toBeLessThanOrEqual(255);
  });
});
