import { REDACTED_PATHS } from '@marquee/platform/logger';
import type {
  FastifyBaseLogger,
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import type { DeveloperAccess } from '../../../app/backends.js';
import { NOT_A_DISTRIBUTOR, retryAfterSeconds } from '../api-key-guard.js';
import type { ApiFamily, FamilyError } from '../families/family.js';
import { paymentActionOf } from '../families/payment-action.js';
import { sendFamilyError, toFamilyError } from '../families/register-family.js';
import { sendRateLimitHeaders } from '../rate-limit-headers.js';
import { declareSecurity } from '../security.js';

/**
 * The partner cart's error codes and the HTTP status each answers (README, "Partner cart").
 * The cart service sends the code as `google.rpc.ErrorInfo.reason`; the edge reads it into
 * `details.reason` (adapters/cart-client.ts) and the family body's `code` is that reason.
 */
export const PARTNER_CODE_STATUS: Readonly<Record<string, number>> = {
  '10001': 401, // no valid API key
  '10002': 400, // invalid input
  '10104': 400, // invalid delivery method
  '20001': 503, // the partner's system is down or in its nightly maintenance window
  '20046': 403, // ticket types not usable on this channel
  '20052': 409, // no inventory / no contiguous seats: the state of the event, not the request
  '20060': 409, // the app holds its limit of tickets of the event (held-ticket quota)
  '20061': 409, // the buyer (third_party_account_id or fan) would pass the event's ticket limit
  '20070': 403, // the event's queue is on: no valid, unspent admission of this app and fan
  '20122': 402, // payment not accepted
  '20129': 402, // no funds
  '20152': 402, // invalid CVV
  '90001': 403, // event not transactable
  '90003': 409, // invalid or stale cart: in the wrong state (404 when unknown or another app's)
  'idempotency-key-reused': 422, // the same Idempotency-Key with a different request
  'idempotency-key-in-progress': 409, // the first request with the key is still running
  // Load shed before any work (the edge's or cart's bound on calls in flight, the partner's queue
  // at the connector full): the platform is busy, not down; retry after Retry-After.
  overloaded: 429,
  '502': 502, // the partner answered badly
  '504': 504, // the partner did not answer in time
};

export const INVALID_INPUT = '10002';
export const STALE_CART = '90003';

/** Retry-After (seconds) when a 503 or 429 gives none: the cart service's `retry_after_seconds`, else 1. */
const DEFAULT_RETRY_AFTER = 1;

type PartnerErrorSource = FastifyError & {
  kind?: string;
  details?: Record<string, unknown>;
};

/**
 * Any error of a partner cart route as the family error: request validation, bodies that are not
 * JSON, wrong media types and oversized bodies are code 10002 with their own status (400, 415,
 * 413); a back-end error keeps the partner code the cart service gave (status from the table), or,
 * without one, the kind's status with code 10002 for invalid input.
 */
export function partnerCartError(family: ApiFamily, err: PartnerErrorSource): FamilyError {
  const base = toFamilyError(family, err);
  if (err.validation || (typeof err.code === 'string' && err.code.startsWith('FST_'))) {
    return base.status >= 500 ? base : { ...base, code: INVALID_INPUT };
  }
  const paymentAction = paymentActionOf(err.details);
  if (paymentAction) base.paymentAction = paymentAction;
  const code =
    base.code === 'invalid_argument'
      ? INVALID_INPUT
      : base.code === 'not_found'
        ? STALE_CART
        : base.code;
  // Whatever the code, what does not exist for the caller is a 404 (an unknown event is 90001
  // NOT_FOUND, an unknown cart or another app's 90003 NOT_FOUND).
  if (err.kind === 'not_found') return { ...base, code, status: 404 };
  return { ...base, code, status: PARTNER_CODE_STATUS[code] ?? base.status };
}

/** A refusal in the family body; a 503 says when to retry (`Retry-After`). */
export function sendPartnerError(
  reply: FastifyReply,
  family: ApiFamily,
  error: FamilyError,
  retryAfterSeconds?: number,
): FastifyReply {
  if (error.status === 503 || error.status === 429) {
    const seconds =
      retryAfterSeconds !== undefined &&
      Number.isInteger(retryAfterSeconds) &&
      retryAfterSeconds > 0
        ? retryAfterSeconds
        : DEFAULT_RETRY_AFTER;
    void reply.header('retry-after', String(seconds));
  }
  return sendFamilyError(reply, family, error);
}

/**
 * The wait a back end asked for: `retry_after_seconds`, or `retryAfterMs` (a shed call: cart's
 * reserve limit, the edge's own bound on calls in flight) rounded up to whole seconds.
 */
export function retryAfterOf(details: Record<string, unknown> | undefined): number | undefined {
  const seconds = Number(details?.retry_after_seconds);
  if (Number.isFinite(seconds) && seconds > 0) return Math.ceil(seconds);
  const ms = Number(details?.retryAfterMs);
  return Number.isFinite(ms) && ms > 0 ? retryAfterSeconds(ms) : undefined;
}

/** The scope's error handler: every error in the partner cart body, logged without secrets. */
export function partnerErrorHandler(family: ApiFamily) {
  return (err: PartnerErrorSource, request: FastifyRequest, reply: FastifyReply) => {
    const error = partnerCartError(family, err);
    if (error.status >= 500 && error.code === 'internal') {
      request.log.error({ err, family: family.id }, 'request failed');
    } else {
      // Only the code and status: messages of JSON parse errors quote the body, which may hold
      // the payment nonce.
      request.log.info(
        { code: error.code, status: error.status, family: family.id },
        'request rejected',
      );
    }
    return sendPartnerError(reply, family, error, retryAfterOf(err.details));
  };
}

/**
 * Request-log redaction of what the partner cart carries besides the platform's own secret paths:
 * the payment nonce and CIN of the billing body, the order token of a commit. The edge never logs
 * bodies; these paths cover any object that ever gets logged with them (defence in depth).
 */
export const PARTNER_SECRET_PATHS: readonly string[] = [
  'cin',
  'card_nonce',
  'cardNonce',
  'order_token',
  'orderToken',
  '*.cin',
  '*.card_nonce',
  '*.cardNonce',
  '*.order_token',
  '*.orderToken',
  '*.*.cin',
  '*.*.cardNonce',
  '*.*.orderToken',
  '*.*.order_token',
  'card.number',
  '*.card.number',
  '*.*.card.number',
  '*.payment.card.number',
  '*.*.payment.card.number',
  '*.payment.card.cin',
  '*.*.payment.card.cin',
];

/**
 * Per-request loggers of a scope with {@link PARTNER_SECRET_PATHS} redacted too. The redaction is
 * compiled once, into a logger the per-request ones are children of (children keep their parent's
 * redaction): compiling it for every request cost about 6 % of the edge's CPU.
 */
export function redactPartnerSecrets(scope: FastifyInstance): void {
  const redacting = new WeakMap<object, FastifyBaseLogger>();
  scope.setChildLoggerFactory((logger, bindings, options) => {
    let parent = redacting.get(logger);
    if (parent === undefined) {
      parent = logger.child(
        {},
        { redact: { paths: [...REDACTED_PATHS, ...PARTNER_SECRET_PATHS], censor: '[REDACTED]' } },
      );
      redacting.set(logger, parent);
    }
    return parent.child(bindings, options);
  });
}

function presentedKey(request: FastifyRequest): string | undefined {
  const fromQuery = (request.query as Record<string, unknown> | undefined)?.apikey;
  const fromHeader = request.headers['x-api-key'];
  for (const raw of [fromQuery, fromHeader]) {
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return undefined;
}

/**
 * The API key (`apikey` query or `x-api-key` header) checked in `onRequest`: a missing or unknown
 * key is refused (401, code 10001) before the body is read or parsed, an app over its quota 429
 * with Retry-After; every counted call answers with the `Rate-Limit*` headers. When the back end is
 * already at its bound of calls in flight, the request is refused first, 429 `overloaded` with
 * Retry-After (so a 429 can come before a 401). Same checks as the other families' guard
 * (auth-gateway through the caching DeveloperAccess), one hook earlier.
 */
export function requirePartnerApiKey(
  scope: FastifyInstance,
  family: ApiFamily,
  access: DeveloperAccess,
  /**
   * Throws when the back end has no room for another call (cart's in-flight bound reached): the
   * request is then refused 429 `overloaded` with Retry-After before its key is checked, so a
   * retry storm costs no quota check at auth-gateway for calls that would be refused anyway.
   */
  assertRoom?: () => void,
): void {
  declareSecurity(scope, ['apiKey', 'apiKeyHeader']);
  scope.addHook('onRequest', async (request, reply) => {
    assertRoom?.();
    const key = presentedKey(request);
    const check = key && key.length <= 256 ? await access.validateApiKey(key) : undefined;
    if (!check?.valid) return sendPartnerError(reply, family, family.unauthorized);
    request.appId = check.appId;
    request.appAccess = check.access;
    if (check.heldTicketsPerEvent !== undefined)
      request.heldTicketsPerEvent = check.heldTicketsPerEvent;
    if (!check.access?.partnerDistribution)
      return sendPartnerError(reply, family, NOT_A_DISTRIBUTOR);
    const quota = await access.checkRateLimit(check.appId);
    sendRateLimitHeaders(reply, quota);
    if (quota.over) {
      const seconds = retryAfterSeconds(quota.retryAfterMs);
      return sendPartnerError(
        reply,
        family,
        {
          status: 429,
          code: 'rate_limited',
          detail: 'Rate limit quota violation: quota limit exceeded',
        },
        seconds,
      );
    }
  });
}
