import { createHash, hkdfSync } from 'node:crypto';
import { createSecretBox, secretBoxKeys } from '@marquee/platform/crypto';
import type { Hasher, SecretBox } from '../app/ports.js';

const SETTING = 'CART_ORDER_TOKEN_KEY';

/**
 * The box of order tokens and access codes at rest: the platform's AES-256-GCM box over
 * CART_ORDER_TOKEN_KEY's ring (the first key seals; the others still open, for a rotation).
 */
export function orderTokenBox(keys: readonly Buffer[]): SecretBox {
  return createSecretBox(keys, SETTING);
}

/**
 * The configured ring, or a fresh key with a warning outside production (tokens sealed with it
 * cannot be answered again after a restart: a retried commit then fails instead of answering).
 */
export function orderTokenKeys(
  configured: string | undefined,
  warn: (message: string) => void,
): Buffer[] {
  return secretBoxKeys(
    configured,
    {
      name: SETTING,
      consequence: 'order tokens are encrypted with a key generated for this process only',
    },
    warn,
  );
}

export const sha256Hasher: Hasher = {
  sha256: (text) => createHash('sha256').update(text, 'utf8').digest('hex'),
};

/**
 * The key that signs the waiting room's admission tokens, derived from the ring's sealing key
 * (HKDF-SHA256), so every replica signs alike without a setting of its own. A rotation of
 * CART_ORDER_TOKEN_KEY voids the admissions in flight (each lasts about two minutes): their fans
 * read a fresh one from their queue ticket.
 */
export function admissionKeyOf(keys: readonly Buffer[]): Buffer {
  const [sealing] = keys;
  if (!sealing) throw new Error('CART_ORDER_TOKEN_KEY has no key');
  return Buffer.from(
    hkdfSync('sha256', sealing, Buffer.alloc(0), 'marquee cart admission tokens', 32),
  );
}
