import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CommerceBackend, FanTokens } from '../../../app/commerce.js';
import { backendCall, type Answered } from '../families/backend-call.js';
import type { ApiFamily, FamilyError } from '../families/family.js';
import { paymentActionOf } from '../families/payment-action.js';
import { sendFamilyError } from '../families/register-family.js';
import { retryAfterSeconds } from '../api-key-guard.js';
import { CommerceError } from './schemas.js';

/** cart's reason for a caller over its wrong-password limit (a presale throttle). */
const PASSWORD_ATTEMPTS_EXCEEDED = 'password_attempts_exceeded';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in fan, set by the commerce fan-token guard. */
    fanId?: string;
  }
}

/**
 * The status and code of each backend error kind on the commerce API. Unlike the family default,
 * `resource_exhausted` from cart means "no tickets" (409), not a quota (429, which only the key
 * guard answers). A reason in the error's details (cart's machine-readable code) becomes the code.
 */
const KIND_STATUS: Record<string, { status: number; code: string }> = {
  invalid_argument: { status: 400, code: 'invalid_request' },
  unauthenticated: { status: 401, code: 'invalid_token' },
  permission_denied: { status: 403, code: 'forbidden' },
  not_found: { status: 404, code: 'not_found' },
  already_exists: { status: 409, code: 'conflict' },
  aborted: { status: 409, code: 'conflict' },
  failed_precondition: { status: 409, code: 'invalid_cart_state' },
  resource_exhausted: { status: 409, code: 'tickets_unavailable' },
  unavailable: { status: 503, code: 'service_unavailable' },
  deadline_exceeded: { status: 504, code: 'timeout' },
};

/** A backend error as the commerce error body; undefined for anything that is not one (a bug: 500). */
export function commerceErrorOf(error: unknown): FamilyError | undefined {
  const e = error as { kind?: unknown; message?: unknown; details?: Record<string, unknown> };
  if (typeof e?.kind !== 'string') return undefined;
  const mapped = KIND_STATUS[e.kind];
  if (!mapped) return undefined;
  const reason = e.details?.reason ?? e.details?.code;
  // Too many wrong presale passwords (cart's throttle): 429 until its window ends.
  if (reason === PASSWORD_ATTEMPTS_EXCEEDED)
    return {
      status: 429,
      code: PASSWORD_ATTEMPTS_EXCEEDED,
      detail: typeof e.message === 'string' ? e.message : PASSWORD_ATTEMPTS_EXCEEDED,
      retryAfterSeconds: retryAfterSeconds(Number(e.details?.retryAfterMs) || 0),
    };
  const paymentAction = paymentActionOf(e.details);
  return {
    status: mapped.status,
    code: typeof reason === 'string' && /^[\w.-]{1,64}$/.test(reason) ? reason : mapped.code,
    detail: typeof e.message === 'string' && e.message ? e.message : mapped.code,
    ...(paymentAction ? { paymentAction } : {}),
  };
}

const FAN_TOKEN_REQUIRED: FamilyError = {
  status: 401,
  code: 'invalid_token',
  detail:
    'A valid fan access token of this app is required (access_token or X-PLATFORM-ACCESS-TOKEN)',
};

export const ONLY_JSON = (format: string): FamilyError => ({
  status: 406,
  code: 'unsupported_format',
  detail: `Format "${format.slice(0, 16)}" is not served; use .json`,
});

/** Every answer a commerce route can give besides its success. */
export const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, CommerceError]));
export const READ_ERRORS = [400, 401, 404, 406, 429, 500, 503, 504];
export const SHOPPING_ERRORS = [400, 401, 403, 404, 409, 429, 500, 503, 504];
export const BODY_ERRORS = [...SHOPPING_ERRORS, 413, 415];

function tokenOf(request: FastifyRequest): string | undefined {
  const query = (request.query as Record<string, unknown> | undefined)?.access_token;
  const header = request.headers['x-platform-access-token'];
  for (const raw of [query, header]) {
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return undefined;
}

/** What every commerce route module works with (commerce-routes.ts makes it once per prefix). */
export interface CommerceRoutesContext {
  readonly family: ApiFamily;
  readonly commerce: CommerceBackend;
  /**
   * Runs a backend call; its errors become the commerce error body, sent at once, and the answer is
   * then `ANSWERED` (the route returns `reply`); anything else is a 500.
   */
  readonly run: <T>(reply: FastifyReply, call: () => Promise<T>) => Promise<T | Answered>;
  /**
   * The fan behind the token given: undefined without a token, '' when it is not an active token
   * issued to the calling app.
   */
  fanOf(request: FastifyRequest): Promise<string | undefined>;
  /** The 401 of a missing or refused fan token (`WWW-Authenticate: Bearer`). */
  refuseToken(reply: FastifyReply): FastifyReply;
  /** False, with the 406 sent, when the path's `.{format}` is not json. */
  acceptsFormat(reply: FastifyReply, format: string | undefined): boolean;
}

export function commerceRoutesContext(
  family: ApiFamily,
  commerce: CommerceBackend,
  fanTokens: FanTokens,
): CommerceRoutesContext {
  return {
    family,
    commerce,
    run: backendCall(family, commerceErrorOf),
    async fanOf(request) {
      const token = tokenOf(request);
      if (token === undefined) return undefined;
      const answer = await fanTokens.introspect(token);
      if (!answer.active || answer.appId !== request.appId || !answer.fanId) return '';
      return answer.fanId;
    },
    refuseToken(reply) {
      void reply.header('www-authenticate', 'Bearer error="invalid_token"');
      return sendFamilyError(reply, family, FAN_TOKEN_REQUIRED);
    },
    acceptsFormat(reply, format) {
      if (format !== undefined && format !== 'json') {
        sendFamilyError(reply, family, ONLY_JSON(format));
        return false;
      }
      return true;
    },
  };
}
