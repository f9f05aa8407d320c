import { errorKindOf, type ErrorKind } from '@marquee/platform/kernel';
import { CartError, ErrorCode, staleCart } from '../../domain/errors.js';

/** The errors the cart's use cases answer with, beyond the domain's own. */

export const notTransactable = (message: string): CartError =>
  new CartError('permission_denied', ErrorCode.NOT_TRANSACTABLE, message);

export const maintenance = (): CartError =>
  new CartError(
    'unavailable',
    ErrorCode.HOST_DOWN,
    'the partner cart is in its nightly maintenance window (02:00-04:00 local time of the event); retry later',
  );

export const hostDown = (message: string): CartError =>
  new CartError('unavailable', ErrorCode.HOST_DOWN, message);

const messageOf = (error: unknown, fallback: string): string =>
  (error as { message?: string } | null)?.message ?? fallback;

/** A partner refusal as the partner cart code and kind the caller sees. */
export function partnerRefusal(error: unknown): CartError {
  if (error instanceof CartError) return error;
  const message = messageOf(error, 'the partner refused');
  switch (errorKindOf(error)) {
    case 'resource_exhausted':
      return new CartError('resource_exhausted', ErrorCode.NO_INVENTORY, message);
    case 'invalid_argument':
      return new CartError('invalid_argument', ErrorCode.INVALID_INPUT, message);
    case 'permission_denied':
      return new CartError('permission_denied', ErrorCode.INVALID_INPUT, message);
    case 'not_found':
    case 'failed_precondition':
      return new CartError('failed_precondition', ErrorCode.NOT_TRANSACTABLE, message);
    default:
      return hostDown(message);
  }
}

/**
 * A print action the connector did not carry out, as the caller sees it: a partner refusal (the
 * order's print state does not allow it, the partner does not know the order) is a
 * failed_precondition of the order (90003) with the partner's message; anything else means the
 * partner could not be asked or did not answer (20001, retry).
 */
export function printRefusal(error: unknown, orderId: string, action: string): CartError {
  if (error instanceof CartError) return error;
  const message = messageOf(error, 'no answer');
  switch (errorKindOf(error)) {
    case 'failed_precondition':
    case 'not_found':
    case 'invalid_argument':
    case 'permission_denied':
      return staleCart(`the partner refused ${action} of order ${orderId}: ${message}`);
    default:
      return hostDown(
        `the partner did not take ${action} of order ${orderId} (${message}); nothing was recorded, retry later`,
      );
  }
}

/** The error a FAILED cart's recorded failure stands for (a settled reserve throws it). */
export function failureError(failure: { code: string; message: string }): CartError {
  const kinds: Record<string, ErrorKind> = {
    [ErrorCode.NO_INVENTORY]: 'resource_exhausted',
    [ErrorCode.INVALID_INPUT]: 'invalid_argument',
    [ErrorCode.HOST_DOWN]: 'unavailable',
    [ErrorCode.OVERLOADED]: 'unavailable',
    [ErrorCode.NOT_TRANSACTABLE]: 'failed_precondition',
  };
  return new CartError(
    kinds[failure.code] ?? 'failed_precondition',
    failure.code as CartError['code'],
    failure.message,
  );
}

/** The partner's error id for "Partial requests are not allowed" (3P API). */
export const PARTIAL_REQUESTS_NOT_ALLOWED = 310;

/** The partner's error id for a cancel of an order it has cancelled already (3P API). */
export const ORDER_ALREADY_CANCELLED = 315;

/** The partner's error id a connector error carries (`details.partnerErrorId`), if any. */
export const partnerErrorIdOf = (error: unknown): unknown =>
  (error as { details?: { partnerErrorId?: unknown } } | null)?.details?.partnerErrorId;

/**
 * A partial cancel the connector did not carry out, as the operator sees it. Nothing was recorded
 * or refunded in any case. The partner cancels whole orders only (its error 310):
 * failed_precondition (90003) saying so, with `details.partial_cancel_unsupported`. Another
 * refusal: failed_precondition with the partner's message. No answer: unavailable (20001), retry.
 */
export function partialCancelRefusal(error: unknown, orderId: string): CartError {
  if (error instanceof CartError) return error;
  if (partnerErrorIdOf(error) === PARTIAL_REQUESTS_NOT_ALLOWED)
    return staleCart(
      `the partner of order ${orderId} cancels whole orders only (partner error 310): cancel the whole order instead; nothing was cancelled or refunded`,
      { order_id: orderId, partial_cancel_unsupported: true },
    );
  const message = messageOf(error, 'no answer');
  switch (errorKindOf(error)) {
    case 'failed_precondition':
    case 'not_found':
    case 'invalid_argument':
    case 'permission_denied':
      return staleCart(
        `the partner refused the cancel of tickets of order ${orderId}: ${message}; nothing was cancelled or refunded`,
        { order_id: orderId },
      );
    default:
      return hostDown(
        `the partner did not take the cancel of tickets of order ${orderId} (${message}); nothing was cancelled or refunded, retry later`,
      );
  }
}
