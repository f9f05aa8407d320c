import { hash, verify } from '@node-rs/argon2';
import type { SecretHasher } from '../app/ports.js';

/**
 * argon2id (RFC 9106) through @node-rs/argon2: a Rust implementation with prebuilt binaries on npm
 * (no compiler at install), off the event loop on libuv's pool. Parameters: OWASP's first
 * recommendation for argon2id (19 MiB, 2 passes, 1 lane). Tests may lower the cost.
 */
export function createArgon2Hasher(
  options: { memoryCost?: number; timeCost?: number } = {},
): SecretHasher {
  const params = {
    algorithm: 2 as const, // Algorithm.Argon2id (a const enum, not importable under isolatedModules)
    memoryCost: options.memoryCost ?? 19_456,
    timeCost: options.timeCost ?? 2,
    parallelism: 1,
  };
  return {
    hash: (secret) => hash(secret, params),
    async verify(hashed, secret) {
      try {
        return await verify(hashed, secret);
      } catch {
        return false;
      }
    },
  };
}
