import type { FastifyInstance, FastifyReply } from 'fastify';
import type { RateLimitState } from '../../app/backends.js';

/**
 * The app's quota after this call, on the answer: `Rate-Limit` (calls a day), `Rate-Limit-Available`
 * (left in the window), `Rate-Limit-Reset` (epoch ms the window resets), `Rate-Limit-Over` (1 when
 * refused). Every family that counts calls against an app's quota sends them, a 400 and a 429 too.
 */
export function sendRateLimitHeaders(reply: FastifyReply, quota: RateLimitState): void {
  void reply.headers({
    'rate-limit': String(quota.limit),
    'rate-limit-available': String(quota.available),
    'rate-limit-reset': String(quota.resetEpochMs),
    'rate-limit-over': String(quota.over ? 1 : 0),
  });
}

/**
 * `Cache-Control: no-store` on every answer of the scope: answers that carry order tokens, entry
 * tokens, cart ids or a buyer's contact must not be kept by a browser or a shared cache.
 */
export function noStore(scope: FastifyInstance): void {
  scope.addHook('onSend', async (_request, reply, payload) => {
    void reply.header('cache-control', 'no-store');
    return payload;
  });
}
