import type { FastifyInstance, FastifyRequest } from 'fastify';
import { metrics } from '@marquee/platform/metrics';
import type { DeveloperAccess } from '../../app/backends.js';
import type { AppAccess } from '../../app/commerce.js';
import type { ApiFamily, FamilyError } from './families/family.js';
import { sendFamilyError } from './families/register-family.js';
import { sendRateLimitHeaders } from './rate-limit-headers.js';
import { apiKeySchemeOf, declareSecurity } from './security.js';

/** Where a family accepts its API key (docs/api-families.md). */
export type KeySource = { in: 'query'; name: string } | { in: 'header'; name: string };

export interface ApiKeyGuardOptions {
  from: readonly KeySource[];
  /**
   * @deprecated No effect: the key is always checked in `onRequest`, before the body is read or
   * anything validated (a caller without a valid key costs no parsing, and a counted request's
   * 400 still carries the `Rate-Limit*` headers).
   */
  stage?: 'preHandler' | 'preValidation';
  /**
   * A restricted service: an app not approved for it is refused with `refusal` (403 in the
   * family's body) after its key is checked and before its quota is counted.
   */
  requires?: { access: keyof AppAccess; refusal: FamilyError };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The calling app, set by the API-key guard. */
    appId?: string;
    /** Restricted services the calling app is approved for, set by the API-key guard. */
    appAccess?: AppAccess;
    /** The calling app's held-ticket quota, set by the API-key guard when auth-gateway gave one. */
    heldTicketsPerEvent?: number;
  }
}

function presentedKey(request: FastifyRequest, from: readonly KeySource[]): string | undefined {
  for (const source of from) {
    const raw =
      source.in === 'query'
        ? (request.query as Record<string, unknown> | undefined)?.[source.name]
        : request.headers[source.name.toLowerCase()];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return undefined;
}

/** Calls refused with 429 because their app was over its quota, by API family. */
const rateLimitRefusals = metrics.counter('marquee_rate_limit_refusals', {
  description: 'Calls refused because their app was over its rate-limit quota, by API family',
});

/**
 * Every call of the scope must carry a valid API key of an active app; a missing or unknown key
 * gets the family's own 401 body, an app over its quota 429. Validation goes to auth-gateway
 * through the DeveloperAccess port (which caches; see adapters/). The check runs in `onRequest`,
 * the first hook, for every family that uses this guard: an anonymous caller gets its 401 before
 * the body is read, parsed or validated.
 */
export function requireApiKey(
  scope: FastifyInstance,
  family: ApiFamily,
  access: DeveloperAccess,
  options: ApiKeyGuardOptions,
): void {
  declareSecurity(scope, options.from.map(apiKeySchemeOf));
  scope.addHook('onRequest', async (request, reply) => {
    const key = presentedKey(request, options.from);
    const check = key ? await access.validateApiKey(key) : undefined;
    if (!check?.valid) return sendFamilyError(reply, family, family.unauthorized);
    request.appId = check.appId;
    request.appAccess = check.access;
    if (check.heldTicketsPerEvent !== undefined)
      request.heldTicketsPerEvent = check.heldTicketsPerEvent;
    if (options.requires && !check.access?.[options.requires.access])
      return sendFamilyError(reply, family, options.requires.refusal);
    const quota = await access.checkRateLimit(check.appId);
    sendRateLimitHeaders(reply, quota);
    if (quota.over) {
      rateLimitRefusals.add(1, { family: family.id });
      void reply.header('retry-after', String(retryAfterSeconds(quota.retryAfterMs)));
      return sendFamilyError(reply, family, {
        status: 429,
        code: family.id === 'discovery' ? 'policies.ratelimit.QuotaViolation' : 'rate_limited',
        detail: 'Rate limit quota violation: quota limit exceeded',
      });
    }
  });
}

/**
 * The refusal of an app without partner distribution access (the partner cart, the order read,
 * secure render): 403, code `10003`, in the partner families' body.
 */
export const NOT_A_DISTRIBUTOR: FamilyError = {
  status: 403,
  code: '10003',
  detail:
    'This app is not approved for partner distribution (an operator grants it with PATCH /admin/v1/apps/{appId}/access)',
};

/** `Retry-After` of a 429: whole seconds until the refusing window ends, at least 1. */
export const retryAfterSeconds = (retryAfterMs: number | undefined): number =>
  Math.max(1, Math.ceil((retryAfterMs ?? 0) / 1000));
