import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AdmissionSigner } from '../app/ports.js';
import type { AdmissionClaims } from '../domain/token.js';

/**
 * Admission tokens: `<claims>.<signature>`, the claims as base64url JSON and the signature their
 * HMAC-SHA256 under the deployment's admission key, so any cart replica checks a token without a
 * lookup. The claims hold no personal data beyond the app's own fan or device id.
 */
export function createAdmissionSigner(key: Buffer): AdmissionSigner {
  if (key.length < 32) throw new Error('the admission key must be at least 32 bytes');
  const mac = (payload: string) => createHmac('sha256', key).update(payload).digest();
  return {
    sign(claims) {
      const payload = Buffer.from(
        JSON.stringify({
          t: claims.ticketId,
          e: claims.eventId,
          a: claims.appId,
          i: claims.identity,
          x: claims.expiresAtMs,
        }),
      ).toString('base64url');
      return `${payload}.${mac(payload).toString('base64url')}`;
    },
    verify(token) {
      const [payload, signature, extra] = token.split('.');
      if (!payload || !signature || extra !== undefined || token.length > 2_048) return undefined;
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      return claimsOf(payload);
    },
  };
}

function claimsOf(payload: string): AdmissionClaims | undefined {
  try {
    const raw = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
    const { t, e, a, i, x } = raw;
    if (typeof t !== 'string' || typeof e !== 'string' || typeof a !== 'string') return undefined;
    if (typeof i !== 'string' || typeof x !== 'number') return undefined;
    return { ticketId: t, eventId: e, appId: a, identity: i, expiresAtMs: x };
  } catch {
    return undefined;
  }
}
