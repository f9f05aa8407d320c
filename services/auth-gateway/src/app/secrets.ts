import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/**
 * Credentials and their fingerprints. Random values come from the CSPRNG; 32 bytes = 256 bits of
 * entropy, above RFC 6749 section 10.10's 128-bit floor for tokens and codes (RFC 6819 section
 * 5.1.4.2.2).
 */
export const newSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url');

export const newId = (): string => randomUUID();

/**
 * Deterministic fingerprint of a high-entropy credential (API key, token, code), used as its
 * storage key: a stolen database reveals no usable credential, and lookups stay O(1).
 */
export const fingerprint = (value: string): string =>
  createHash('sha256').update(value).digest('base64url');

/** Keyed hash (HMAC-SHA-256): unlinkable across keys/contexts without the key. */
export const keyedHash = (key: string, ...parts: string[]): string =>
  createHmac('sha256', key).update(parts.join('\u0000')).digest('base64url');

/** Constant-time equality of two strings of any length (both hashed first). */
export function safeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db);
}
