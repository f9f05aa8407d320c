/**
 * The records of the fans' authorization-code flow (RFC 6749, section 4.1).
 * Codes and tokens are stored under the fingerprint of their value, never the value itself.
 */

/** The only scope of the platform: `scope=all`. */
export const SCOPE_ALL = 'all';

/** Access tokens live an hour (`expires_in` 3600). */
export const ACCESS_TOKEN_TTL_S = 3600;
/** Refresh tokens "may expire or be revoked": 30 days, then the fan authorizes again. */
export const REFRESH_TOKEN_TTL_S = 30 * 86_400;
/** RFC 6749 section 4.1.2: codes live at most 10 minutes; 5 is plenty for a redirect. */
export const CODE_TTL_S = 300;
/** A login-and-consent interaction in the browser. */
export const INTERACTION_TTL_S = 600;

/** A browser's trip through the login and consent pages, bound to it by a cookie. */
export interface Interaction {
  /** Fingerprint of the cookie value. */
  id: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  /** Only when the client sent it: it is echoed only then. */
  state?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  /** Fingerprint of the CSRF token in the page's forms. */
  csrfHash: string;
  /** Set once the fan signed in. */
  fanId?: string;
  expiresAt: Date;
}

export interface AuthorizationCode {
  /** Fingerprint of the code. */
  id: string;
  appId: string;
  clientId: string;
  fanId: string;
  /** The grant (fan × app) the code was issued under. */
  grantId: string;
  redirectUri: string;
  scope: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  expiresAt: Date;
  /** Set by the first exchange; a second one is a replay. */
  usedAt?: Date;
  /**
   * Set when a replay was seen — of this code, or of a retired refresh token of its family: every
   * token of the family is revoked, even those issued afterwards (a race's winner saving late).
   */
  replayedAt?: Date;
}

export type TokenKind = 'access' | 'refresh';

export interface IssuedToken {
  /** Fingerprint of the token. */
  id: string;
  kind: TokenKind;
  appId: string;
  clientId: string;
  fanId: string;
  grantId: string;
  /** The code the token family descends from (replay revokes by it). */
  codeId: string;
  scope: string;
  expiresAt: Date;
  revokedAt?: Date;
  /**
   * Refresh tokens of apps that rotate them: set when the token was exchanged for a new one. It
   * never works again; presenting it again is a replay (RFC 9700, section 4.14.2) and revokes the family.
   */
  rotatedAt?: Date;
}

/** A fan's approval of an app. */
export interface Grant {
  /** `<appId>:<fanId>`. */
  id: string;
  appId: string;
  clientId: string;
  fanId: string;
  scope: string;
  approvedAt: Date;
  revokedAt?: Date;
}

export const grantIdOf = (appId: string, fanId: string): string => `${appId}:${fanId}`;

export function isLive(token: IssuedToken | undefined, now: Date): token is IssuedToken {
  return (
    token !== undefined &&
    token.revokedAt === undefined &&
    token.rotatedAt === undefined &&
    token.expiresAt > now
  );
}
