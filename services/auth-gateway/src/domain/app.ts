import { AuthError } from './errors.js';

/**
 * A developer app: the holder of an API key (every public API family) and an OAuth client of the
 * fans' authorization-code flow. Secrets are never stored in clear: the API key
 * as a SHA-256 fingerprint (a 192-bit random value; looked up on every call, so the hash must be
 * deterministic and fast), the client secret as an argon2id hash.
 */
export interface DeveloperApp {
  id: string;
  name: string;
  /** Public OAuth client id. */
  clientId: string;
  clientSecretHash: string;
  apiKeyFingerprint: string;
  /**
   * Public id of the app for the tracking pixel (`mqt_` and 22 random base64url characters):
   * pages anyone can read carry it instead of the API key. It grants nothing but recording a
   * visit, so it is stored as it is. Apps created before tracking ids existed get one from the
   * start-up backfill (`DeveloperAccess.backfillTrackingIds`).
   */
  trackingId?: string;
  /** Exact-match allow-list (RFC 9700 section 2.1: no pattern matching). */
  redirectUris: string[];
  status: AppStatus;
  quota: Quota;
  /**
   * Restricted services an operator approved the app for (absent on apps stored before approvals
   * existed: nothing approved).
   */
  access?: AppAccess;
  /** How the app's OAuth client is held to the flow (absent on apps stored before: all off). */
  oauth?: AppOAuth;
  createdAt: Date;
}

/**
 * Restricted services an app may use, each granted by an operator (admin API, `marquee apps
 * approve`). A new restricted service adds a flag; every flag defaults to false.
 */
export interface AppAccess {
  /** The commerce API's shopping services (cart, delivery, payment, purchase). */
  commerceShopping: boolean;
  /**
   * Selling through the partner cart (resale listings included), the secure-entry order read and
   * secure render: apps of distributors with an official distribution relationship only.
   */
  partnerDistribution: boolean;
}

export const NO_ACCESS: Readonly<AppAccess> = Object.freeze({
  commerceShopping: false,
  partnerDistribution: false,
});

/** The app's access, every flag present. */
export const accessOf = (app: Pick<DeveloperApp, 'access'>): AppAccess => ({
  ...NO_ACCESS,
  ...app.access,
});

/**
 * How an app's OAuth client is held to the authorization-code flow, set by an operator at creation
 * or later (admin API, `marquee apps create|update`). Every setting defaults to off.
 */
export interface AppOAuth {
  /** `/oauth/authorize` refuses a request without an S256 `code_challenge`. */
  requirePkce: boolean;
  /**
   * Every refresh answers a new refresh token and retires the one presented; a retired one
   * presented again is a replay and revokes its whole token family. Off by default because the
   * platform's token contract has the refresh answer without a refresh token: a client written to
   * it keeps using the first refresh token and would lose its grant at its second refresh.
   */
  rotateRefreshTokens: boolean;
}

export const DEFAULT_OAUTH: Readonly<AppOAuth> = Object.freeze({
  requirePkce: false,
  rotateRefreshTokens: false,
});

/** The app's OAuth settings, every one present. */
export const oauthOf = (app: Pick<DeveloperApp, 'oauth'> | undefined): AppOAuth => ({
  ...DEFAULT_OAUTH,
  ...app?.oauth,
});

export type AppStatus = 'active' | 'suspended';

/**
 * Per-app quota: by default 5,000 calls a day at 5 calls a second, and 20 tickets held at once per
 * event (cart's held-ticket quota, which the edge passes on with every reserve; 0 = no limit).
 */
export interface Quota {
  perDay: number;
  perSecond: number;
  heldTicketsPerEvent: number;
}

export const DEFAULT_QUOTA: Quota = { perDay: 5000, perSecond: 5, heldTicketsPerEvent: 20 };

/** The app's quota, every part present (apps stored before a part existed have its default). */
export const quotaOf = (app: { quota: Partial<Quota> }): Quota => ({
  ...DEFAULT_QUOTA,
  ...app.quota,
});

export const MAX_REDIRECT_URIS = 20;

/**
 * A registrable redirect URI: absolute, http(s), no fragment (RFC 6749 section 3.1.2). Plain http
 * only for loopback hosts (RFC 8252 section 7.3) — anything else would send codes over the network
 * in clear.
 */
export function validateRedirectUri(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AuthError('invalid_argument', `redirect URI is not an absolute URL: ${raw}`);
  }
  if (url.hash !== '' || raw.includes('#')) {
    throw new AuthError('invalid_argument', `redirect URI must not contain a fragment: ${raw}`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new AuthError(
      'invalid_argument',
      `redirect URI must use https (http only for localhost): ${raw}`,
    );
  }
  return raw;
}

/** A quota an operator sets: whole numbers of at least 1 (the tighter window wins). */
export function validateQuota(quota: Quota): Quota {
  const ok = (n: number) => Number.isSafeInteger(n) && n >= 1;
  if (!ok(quota.perDay) || !ok(quota.perSecond)) {
    throw new AuthError('invalid_argument', 'quota values must be whole numbers of at least 1');
  }
  const held = quota.heldTicketsPerEvent;
  if (!Number.isSafeInteger(held) || held < 0 || held > 100_000) {
    throw new AuthError(
      'invalid_argument',
      'heldTicketsPerEvent must be a whole number from 0 (no limit) to 100000',
    );
  }
  return quota;
}

export function validateNewApp(input: { name: string; redirectUris: readonly string[] }): {
  name: string;
  redirectUris: string[];
} {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 100) {
    throw new AuthError('invalid_argument', 'name must be 1 to 100 characters');
  }
  if (input.redirectUris.length === 0 || input.redirectUris.length > MAX_REDIRECT_URIS) {
    throw new AuthError(
      'invalid_argument',
      `redirectUris must list 1 to ${MAX_REDIRECT_URIS} URIs`,
    );
  }
  return { name, redirectUris: [...new Set(input.redirectUris.map(validateRedirectUri))] };
}
