import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Hasher, SecretBox } from '../app/ports.js';
import type { SealedSecret } from '../domain/cart.js';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;

/**
 * AES-256-GCM with a random 12-byte IV per secret (order tokens, access codes); the authentication
 * tag makes a tampered or foreign-key ciphertext fail instead of decrypting to garbage. Error
 * messages never carry values.
 */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the order token key must be 32 bytes');
  return {
    seal(plain): SealedSecret {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return {
        iv: iv.toString('base64'),
        tag: cipher.getAuthTag().toString('base64'),
        data: data.toString('base64'),
      };
    },
    open(sealed) {
      try {
        const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(sealed.iv, 'base64'));
        decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
        return Buffer.concat([
          decipher.update(Buffer.from(sealed.data, 'base64')),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        throw new Error('a cart secret could not be decrypted (wrong CART_ORDER_TOKEN_KEY?)');
      }
    },
  };
}

/**
 * The configured key, or a fresh one with a warning outside production (tokens sealed with it
 * cannot be answered again after a restart: a retried commit then fails instead of answering).
 */
export function orderTokenKey(
  configured: string | undefined,
  warn: (message: string) => void,
): Buffer {
  if (configured) return Buffer.from(configured, 'base64');
  warn(
    'CART_ORDER_TOKEN_KEY is not set: order tokens are encrypted with a key generated for this process only',
  );
  return randomBytes(32);
}

export const sha256Hasher: Hasher = {
  sha256: (text) => createHash('sha256').update(text, 'utf8').digest('hex'),
};
