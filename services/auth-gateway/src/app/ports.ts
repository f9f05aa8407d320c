import type { AppAccess, AppOAuth, DeveloperApp, Quota } from '../domain/app.js';
import type { Fan } from '../domain/fan.js';
import type { AuthorizationCode, Grant, Interaction, IssuedToken } from '../domain/oauth.js';

/**
 * What the use cases need from the outside, declared by the layer that uses it (docs/decisions.md,
 * Layers). One implementation over the platform's VersionedStore serves both the memory and the
 * Mongo adapter (adapters/store-repositories.ts); the contract suite in test/ runs on both.
 */
export interface AppRepository {
  /** `already_exists` on a clash of id, client id or API-key fingerprint. */
  insert(app: DeveloperApp): Promise<void>;
  byId(id: string): Promise<DeveloperApp | undefined>;
  byClientId(clientId: string): Promise<DeveloperApp | undefined>;
  byApiKeyFingerprint(fingerprint: string): Promise<DeveloperApp | undefined>;
  byTrackingId(trackingId: string): Promise<DeveloperApp | undefined>;
  /** Apps stored without a tracking id (created before they existed), at most `limit`. */
  withoutTrackingId(limit: number): Promise<DeveloperApp[]>;
  /**
   * Compare-and-set: gives the app `trackingId` only if it still has none. True when this call
   * set it; false when the app has one already (another replica was first) or is unknown.
   */
  assignTrackingId(id: string, trackingId: string): Promise<boolean>;
  /**
   * Sets the given access flags (others keep their value) with a compare-and-set write; resolves the
   * app as stored after the change, `undefined` for an unknown app.
   */
  setAccess(id: string, change: Partial<AppAccess>): Promise<DeveloperApp | undefined>;
  /** Sets the given OAuth settings (others keep their value); as `setAccess`. */
  setOAuth(id: string, change: Partial<AppOAuth>): Promise<DeveloperApp | undefined>;
  /**
   * Sets the given parts of the app's quota (others keep their value); as `setAccess`. Kind
   * `invalid_argument` when the quota they make is out of range (nothing is written).
   */
  setQuota(id: string, change: Partial<Quota>): Promise<DeveloperApp | undefined>;
}

export interface FanRepository {
  /** `already_exists` when the (normalised) e-mail is taken. */
  insert(fan: Fan): Promise<void>;
  byId(id: string): Promise<Fan | undefined>;
  byEmail(email: string): Promise<Fan | undefined>;
  /**
   * Deletes the fan and records `fan-deleted` (key = fan id, the id alone) in the same write. The
   * e-mail and password hash are overwritten first, so the deleted record (kept invisible until
   * the outbox relay has published the event) holds neither. False when there is no such fan.
   */
  erase(id: string, at: Date): Promise<boolean>;
}

/**
 * Counters of the quota windows. `add` is atomic per key and returns the count after adding (a
 * negative amount gives back); counters vanish some time after `expiresAtMs`.
 *
 * `lease` (default 1: none) lets a shared counter take up to that many units ahead with one write
 * and hand them out from memory: each call still gets a count no other call of any process got
 * (so "count over the limit" stays exact across replicas), but counts are no longer in arrival
 * order across processes, and units taken ahead and never handed out are lost with their window
 * (a count may run ahead of the calls made by at most the lease per process).
 */
export interface RateCounter {
  add(
    key: string,
    amount: number,
    expiresAtMs: number,
    options?: { lease?: number },
  ): Promise<number>;
}

/** Memory-hard hashing of low-entropy or long-lived secrets: passwords and client secrets. */
export interface SecretHasher {
  hash(secret: string): Promise<string>;
  /** Constant-time in the secret; false (never a throw) for a malformed hash. */
  verify(hash: string, secret: string): Promise<boolean>;
}

/** The time, as the platform's kernel defines it. */
export type { Clock } from '@marquee/platform/kernel';

/** What the flow persists (adapters/oauth-repository.ts, over the VersionedStore). */
export interface OAuthRepository {
  saveInteraction(interaction: Interaction): Promise<void>;
  getInteraction(id: string): Promise<Interaction | undefined>;
  deleteInteraction(id: string): Promise<void>;
  /** Deletes interactions that expired before `now` (abandoned sign-ins). */
  purgeInteractions(now: Date): Promise<number>;
  /** Deletes codes and tokens that expired before their cutoff (a bounded batch per call). */
  purgeExpired(cutoffs: { codes: Date; tokens: Date }): Promise<number>;

  saveCode(code: AuthorizationCode): Promise<void>;
  getCode(id: string): Promise<AuthorizationCode | undefined>;
  /** Compare-and-set: true for the one caller that marked the unused code used. */
  markCodeUsed(id: string, at: Date): Promise<boolean>;
  markCodeReplayed(id: string, at: Date): Promise<void>;

  saveToken(token: IssuedToken): Promise<void>;
  getToken(id: string): Promise<IssuedToken | undefined>;
  /**
   * Compare-and-set: true for the one caller that marked the token rotated; false when it is
   * missing, revoked or rotated already, or another writer changed it meanwhile.
   */
  markTokenRotated(id: string, at: Date): Promise<boolean>;
  /** Revokes every live token of the code's family or of the grant; resolves with how many. */
  revokeTokens(by: { codeId: string } | { grantId: string }, at: Date): Promise<number>;

  getGrant(id: string): Promise<Grant | undefined>;
  /** Stores the approval and records the `app-authorized` fact with it, atomically. */
  approveGrant(grant: Grant, fact: AppAuthorizedFact): Promise<void>;
  revokeGrant(id: string, at: Date): Promise<void>;
  /**
   * Deletes every interaction, code, token and grant of the fan; resolves with how many grants
   * were deleted. Safe to repeat: a second call finds nothing.
   */
  deleteFanRecords(fanId: string): Promise<{ grants: number }>;
}

/** What `app-authorized` carries (proto marquee.auth.v1.AppAuthorized). */
export interface AppAuthorizedFact {
  clientId: string;
  appId: string;
  fanId: string;
  userId: string;
  scope: string;
  authorizedAt: Date;
}

/** The key of the `user_id` keyed hash: configured, or created once and kept. */
export interface KeyStore {
  userIdKey(): Promise<string>;
}
