import { metrics } from '@marquee/platform/metrics';
import type { PaymentProcessor } from '../app/ports.js';

/**
 * Payments by outcome, for the operator's dashboards and the payment-failure alert:
 * `marquee_payments_total{processor, operation, outcome}`. `operation` is authorize, capture,
 * void, refund or void_abandoned (the sweeper's search for authorisations a crash left); `outcome` is `ok`, `action_required` (3-D Secure asked), `declined` (the card
 * was refused: kind failed_precondition), `rejected` (a payment method the processor cannot use)
 * or `error` (the processor did not answer or failed). Counted at the port, so every use case and
 * both processors are covered; nothing about the card or the cart is a label.
 */
const payments = metrics.counter('marquee_payments', {
  description: 'Payment processor calls by processor, operation and outcome',
});

function outcomeOf(error: unknown): string {
  switch ((error as { kind?: string } | null)?.kind) {
    case 'failed_precondition':
      return 'declined';
    case 'invalid_argument':
      return 'rejected';
    default:
      return 'error';
  }
}

/** `processor`, counting every call's outcome under `marquee_payments_total`. */
export function meteredProcessor(processor: PaymentProcessor): PaymentProcessor {
  const count = (operation: string, outcome: string) =>
    payments.add(1, { processor: processor.name, operation, outcome });
  const metered = async <T>(
    operation: string,
    call: () => Promise<T>,
    outcome: (result: T) => string = () => 'ok',
  ): Promise<T> => {
    try {
      const result = await call();
      count(operation, outcome(result));
      return result;
    } catch (error) {
      count(operation, outcomeOf(error));
      throw error;
    }
  };
  return {
    name: processor.name,
    authorize: (input) =>
      metered(
        'authorize',
        () => processor.authorize(input),
        (answer) => (answer.status === 'requires_action' ? 'action_required' : 'ok'),
      ),
    capture: (paymentId, amountMinor, currency) =>
      metered('capture', () => processor.capture(paymentId, amountMinor, currency)),
    void: (paymentId) => metered('void', () => processor.void(paymentId)),
    refund: (paymentId, amountMinor, idempotencyKey) =>
      metered('refund', () => processor.refund(paymentId, amountMinor, idempotencyKey)),
    voidAbandoned: (cartId) => metered('void_abandoned', () => processor.voidAbandoned(cartId)),
  };
}
