import type { ErrorKind } from '@marquee/platform/kernel';

/** Partner cart error codes (ErrorInfo reasons). */
export const ErrorCode = {
  /** Invalid input (a field is missing, malformed or out of range). */
  INVALID_INPUT: '10002',
  /** Invalid delivery method (unknown shipping option). */
  INVALID_DELIVERY: '10104',
  /** Back-end maintenance window, or the partner host is down. */
  HOST_DOWN: '20001',
  /** No inventory matches the request (or no contiguous seats). */
  NO_INVENTORY: '20052',
  /** The app already holds its limit of tickets for the event (its held-ticket quota). */
  HELD_TICKET_LIMIT: '20060',
  /** One buyer (fan or third_party_account_id) would hold and buy more than the event's limit. */
  BUYER_TICKET_LIMIT: '20061',
  /** The event's on-sale has a queue: a reserve needs a valid, unspent admission of its own. */
  ADMISSION_REQUIRED: '20070',
  /** The payment was not accepted (declined by the processor). */
  PAYMENT_NOT_ACCEPTED: '20122',
  /** The processor found no funds on the card. */
  NO_FUNDS: '20129',
  /** The card verification value is wrong. */
  INVALID_CVV: '20152',
  /** The event cannot be transacted: not on sale, not sold through the platform, cancelled. */
  NOT_TRANSACTABLE: '90001',
  /** Invalid or stale cart: unknown, of another app, or in a state that does not allow the call. */
  INVALID_CART: '90003',
  /**
   * Too much at once (this process's reserves in flight, or the partner's queue at the connector):
   * nothing was done; retry after `retryAfterMs`. The edge answers 429 with Retry-After.
   */
  OVERLOADED: 'overloaded',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * Errors of cart's use cases: a `kind` of the platform's vocabulary (the gRPC status the port
 * answers) and the partner cart error code, carried in `details.reason` (the edge renders it as
 * `error.code`). The README lists every code.
 */
export class CartError extends Error {
  readonly details: Record<string, unknown>;

  constructor(
    readonly kind: ErrorKind,
    readonly code: ErrorCode,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'CartError';
    this.details = { ...details, reason: code };
  }
}

export const invalidInput = (message: string, field?: string): CartError =>
  new CartError('invalid_argument', ErrorCode.INVALID_INPUT, message, field ? { field } : {});

export const staleCart = (message: string, details: Record<string, unknown> = {}): CartError =>
  new CartError('failed_precondition', ErrorCode.INVALID_CART, message, details);

export const cartNotFound = (cartId: string): CartError =>
  new CartError('not_found', ErrorCode.INVALID_CART, `cart ${cartId} not found`, {
    cart_id: cartId,
  });

/**
 * Too much in progress to take this on now; nothing was done, a retry after the pause may pass.
 * Kind `unavailable` (not recorded under an Idempotency-Key: a retry runs again), reason
 * `overloaded` (the edge answers 429 with Retry-After, not 503: the platform is up, only busy).
 */
export const overloaded = (message: string, retryAfterMs: number): CartError =>
  new CartError('unavailable', ErrorCode.OVERLOADED, message, { retryAfterMs });

/** The reason 3p-connector gives a call it refused because the partner's queue is full. */
export const PARTNER_BUSY = 'partner-busy';

/** A connector refusal of a partner call that was never sent: the partner's queue was full. */
export const isPartnerBusy = (error: unknown): boolean =>
  (error as { details?: { reason?: unknown } } | null)?.details?.reason === PARTNER_BUSY;
