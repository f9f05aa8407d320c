import type { DeveloperApp } from '../domain/app.js';
import type { Fan } from '../domain/fan.js';

/**
 * What the use cases need from the outside, declared by the layer that uses it (STYLE.md). One
 * implementation over the platform's VersionedStore serves both the memory and the Mongo adapter
 * (adapters/store-repositories.ts); the contract suite in test/ runs on both.
 */
export interface AppRepository {
  /** `already_exists` on a clash of id, client id or API-key fingerprint. */
  insert(app: DeveloperApp): Promise<void>;
  byId(id: string): Promise<DeveloperApp | undefined>;
  byClientId(clientId: string): Promise<DeveloperApp | undefined>;
  byApiKeyFingerprint(fingerprint: string): Promise<DeveloperApp | undefined>;
}

export interface FanRepository {
  /** `already_exists` when the (normalised) e-mail is taken. */
  insert(fan: Fan): Promise<void>;
  byId(id: string): Promise<Fan | undefined>;
  byEmail(email: string): Promise<Fan | undefined>;
}

/**
 * Counters of the quota windows. `add` is atomic per key and returns the count after adding (a
 * negative amount gives back); counters vanish some time after `expiresAtMs`.
 */
export interface RateCounter {
  add(key: string, amount: number, expiresAtMs: number): Promise<number>;
}

/** Memory-hard hashing of low-entropy or long-lived secrets: passwords and client secrets. */
export interface SecretHasher {
  hash(secret: string): Promise<string>;
  /** Constant-time in the secret; false (never a throw) for a malformed hash. */
  verify(hash: string, secret: string): Promise<boolean>;
}

export type Clock = () => Date;
