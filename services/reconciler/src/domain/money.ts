import type { CaseTrigger } from './case.js';
import type { Transaction } from './transaction.js';

/** A money case: what is wrong, what an operator must do, and why. */
export interface MoneyFinding {
  trigger: Extract<CaseTrigger, 'CAPTURE_WITHOUT_ORDER' | 'ORDER_WITHOUT_CAPTURE'>;
  operatorAction: string;
  detail: string;
}

const amount = (minor: number, currency: string) => `${minor} ${currency} (minor units)`;

/**
 * The money check of a transaction whose check is due:
 *
 * | platform                                     | finding                                        |
 * | -------------------------------------------- | ---------------------------------------------- |
 * | payment captured, no order confirmed         | CAPTURE_WITHOUT_ORDER: refund at the processor |
 * | order confirmed, captured less than its total | ORDER_WITHOUT_CAPTURE: charge or cancel        |
 * | anything else (order and capture agree)       | nothing                                        |
 *
 * A cancelled order with its capture is not a finding: cart refunds the cancel itself.
 */
export function checkMoney(t: Transaction): MoneyFinding | undefined {
  const p = t.payment;
  if (p && !t.confirmedAt && !t.cancelledAt) {
    return {
      trigger: 'CAPTURE_WITHOUT_ORDER',
      operatorAction: `refund payment ${p.paymentId} (${p.provider}) in full at the processor, or have the buyer's app retry the commit of cart ${t.cartId ?? '?'} if the partner still holds the order`,
      detail: `payment ${p.paymentId} captured ${amount(p.capturedMinor, p.currency)} for cart ${t.cartId ?? '?'} and no order was confirmed`,
    };
  }
  if (
    t.confirmedAt &&
    t.orderGrandMinor !== undefined &&
    (t.orderCapturedMinor ?? 0) < t.orderGrandMinor
  ) {
    const currency = p?.currency ?? '';
    return {
      trigger: 'ORDER_WITHOUT_CAPTURE',
      operatorAction: `capture payment ${p?.paymentId || '(none)'} at the processor if it is still authorised, or cancel order ${t.orderId ?? '?'} (which voids its tickets)`,
      detail: `order ${t.orderId ?? '?'} was confirmed for ${amount(t.orderGrandMinor, currency)} with ${amount(t.orderCapturedMinor ?? 0, currency)} captured`,
    };
  }
  return undefined;
}
