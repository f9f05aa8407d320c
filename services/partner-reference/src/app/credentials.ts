import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { allPartnerScopes, type PartnerScopeValue } from '@marquee/partner-api';
import type { Clock } from '@marquee/platform/kernel';

/**
 * An RFC 6749 section 5.2 refusal of the token endpoint, by its error code (the port answers
 * `invalid_client` with 401 and a challenge, the others with 400).
 */
export class OAuthError extends Error {
  readonly error: 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope';

  constructor(error: OAuthError['error'], description: string) {
    super(description);
    this.name = 'OAuthError';
    this.error = error;
  }
}

/** An access token as issued: the token itself (shown once), its scopes and lifetime. */
export interface IssuedToken {
  token: string;
  scopes: string[];
  ttlSeconds: number;
}

export type Authentication =
  | { ok: true; scopes: ReadonlySet<string> }
  | { ok: false; reason: 'missing' | 'invalid' | 'expired' };

const sha256 = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Equality of two strings in time independent of where they differ (digests of equal length). */
export const constantTimeEqual = (a: string, b: string): boolean =>
  timingSafeEqual(sha256(a), sha256(b));

const MAX_LIVE_TOKENS = 100_000;

/**
 * The one OAuth client of the 3P API (client credentials) and the access tokens it is given.
 * The client secret is kept only as its SHA-256 digest and compared in constant time; tokens are
 * 32 random bytes (base64url), kept only as their SHA-256 fingerprint with their scopes and expiry,
 * in this process's memory (a restart makes callers fetch a new token: they get 401 and do).
 */
export class ClientCredentials {
  readonly #clientId: string;
  readonly #secretDigest: Buffer;
  readonly #ttlSeconds: number;
  readonly #clock: Clock;
  readonly #tokens = new Map<string, { scopes: ReadonlySet<string>; expiresAt: number }>();

  constructor(options: {
    clientId: string;
    clientSecret: string;
    ttlSeconds: number;
    clock: Clock;
  }) {
    this.#clientId = options.clientId;
    this.#secretDigest = sha256(options.clientSecret);
    this.#ttlSeconds = options.ttlSeconds;
    this.#clock = options.clock;
  }

  /** Checks the client, then issues a token with the requested scopes (all when none asked). */
  issue(
    grantType: string | undefined,
    clientId: string | undefined,
    clientSecret: string | undefined,
    scope: string | undefined,
  ): IssuedToken {
    if (grantType === undefined || grantType === '')
      throw new OAuthError('invalid_request', 'grant_type is required');
    if (grantType !== 'client_credentials')
      throw new OAuthError('unsupported_grant_type', 'only client_credentials is supported');
    if (clientId === undefined || clientSecret === undefined)
      throw new OAuthError('invalid_client', 'client authentication is required');
    // Both compared whatever the first gives, so timing tells nothing about which one failed.
    const idMatches = constantTimeEqual(clientId, this.#clientId);
    const secretMatches = timingSafeEqual(sha256(clientSecret), this.#secretDigest);
    if (!(idMatches && secretMatches))
      throw new OAuthError('invalid_client', 'client authentication failed');
    const requested =
      scope === undefined || scope.trim() === ''
        ? [...allPartnerScopes]
        : [...new Set(scope.trim().split(/ +/))];
    const unknown = requested.filter((s) => !(allPartnerScopes as readonly string[]).includes(s));
    if (unknown.length > 0)
      throw new OAuthError('invalid_scope', `unknown scope ${unknown.join(' ')}`);
    const token = randomBytes(32).toString('base64url');
    const now = this.#clock.now().getTime();
    if (this.#tokens.size >= MAX_LIVE_TOKENS) this.purgeExpired();
    if (this.#tokens.size >= MAX_LIVE_TOKENS) {
      const oldest = this.#tokens.keys().next().value;
      if (oldest !== undefined) this.#tokens.delete(oldest);
    }
    this.#tokens.set(sha256(token).toString('base64url'), {
      scopes: new Set(requested as PartnerScopeValue[]),
      expiresAt: now + this.#ttlSeconds * 1000,
    });
    return { token, scopes: requested, ttlSeconds: this.#ttlSeconds };
  }

  /** The scopes of a bearer token, or why it is refused. */
  authenticate(token: string | undefined): Authentication {
    if (token === undefined || token === '') return { ok: false, reason: 'missing' };
    const entry = this.#tokens.get(sha256(token).toString('base64url'));
    if (entry === undefined) return { ok: false, reason: 'invalid' };
    if (entry.expiresAt <= this.#clock.now().getTime()) return { ok: false, reason: 'expired' };
    return { ok: true, scopes: entry.scopes };
  }

  purgeExpired(): void {
    const now = this.#clock.now().getTime();
    for (const [key, entry] of this.#tokens) if (entry.expiresAt <= now) this.#tokens.delete(key);
  }
}
