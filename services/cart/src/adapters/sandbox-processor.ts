import { createHash } from 'node:crypto';
import { AppError } from '@marquee/platform/errors';
import type { Authorization, PaymentProcessor } from '../app/ports.js';

const digest = (text: string): string =>
  createHash('sha256').update(text).digest('hex').slice(0, 24);

/**
 * The sandbox payment processor: no money moves. The card "number" is a nonce that decides the
 * outcome (documented in the README):
 *
 * | nonce                            | outcome                                                   |
 * | -------------------------------- | --------------------------------------------------------- |
 * | `fake-valid-nonce`               | approved, VISA ending 1111                                 |
 * | `fake-valid-mastercard-nonce`    | approved, MASTERCARD ending 4444                           |
 * | `fake-processor-declined-nonce`  | declined (20122)                                           |
 * | `fake-insufficient-funds-nonce`  | declined, no funds (20129)                                 |
 * | `fake-cvv-mismatch-nonce`        | declined, invalid CVV (20152)                              |
 * | `fake-processor-timeout-nonce`   | no answer: after `timeoutMs` UNAVAILABLE (20001), not taken |
 * | anything else                    | declined (20122)                                           |
 *
 * Payment ids are derived from the caller's reference (the same authorisation on a retry);
 * capture, void and refund of any sandbox payment succeed and are idempotent (a refund's id is
 * derived from its idempotency key). The sandbox never asks for 3-D Secure.
 */
export function createSandboxProcessor(options: { timeoutMs: number }): PaymentProcessor {
  const declined = (code: string, message: string) =>
    new AppError('failed_precondition', message, { details: { reason: code } });
  const approved = (reference: string, issuer: string, last4: string): Authorization => ({
    status: 'authorized',
    paymentId: `sbx_${digest(reference)}`,
    issuer,
    last4,
  });
  return {
    name: 'sandbox',
    async authorize(input) {
      switch (input.nonce) {
        case 'fake-valid-nonce':
          return approved(input.reference, 'VISA', '1111');
        case 'fake-valid-mastercard-nonce':
          return approved(input.reference, 'MASTERCARD', '4444');
        case 'fake-insufficient-funds-nonce':
          throw declined('20129', 'the card has insufficient funds');
        case 'fake-cvv-mismatch-nonce':
          throw declined('20152', 'the card verification value is invalid');
        case 'fake-processor-timeout-nonce':
          await new Promise((resolve) => setTimeout(resolve, options.timeoutMs));
          throw new AppError(
            'unavailable',
            'the payment processor did not answer; the payment was not taken, retry',
            { details: { reason: '20001' } },
          );
        default:
          throw declined('20122', 'the payment processor declined the payment');
      }
    },
    async capture(paymentId) {
      if (!paymentId.startsWith('sbx_'))
        throw new AppError('failed_precondition', 'not a sandbox payment');
    },
    async void(paymentId) {
      if (!paymentId.startsWith('sbx_'))
        throw new AppError('failed_precondition', 'not a sandbox payment');
    },
    // The sandbox holds no money, so nothing is ever left behind.
    async voidAbandoned() {
      return 0;
    },
    async refund(paymentId, _amountMinor, idempotencyKey) {
      if (!paymentId.startsWith('sbx_'))
        throw new AppError('failed_precondition', 'not a sandbox payment');
      return { refundId: `sbx_re_${digest(idempotencyKey)}`, status: 'succeeded' };
    },
  };
}
