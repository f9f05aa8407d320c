import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretBox } from '../app/ports.js';
import type { EncryptedSecret } from '../domain/partner.js';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;

/**
 * AES-256-GCM with a random 12-byte IV per secret; the authentication tag makes a tampered or
 * foreign-key ciphertext fail instead of decrypting to garbage. Error messages never carry values.
 */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the credentials key must be 32 bytes');
  return {
    encrypt(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return {
        iv: iv.toString('base64'),
        tag: cipher.getAuthTag().toString('base64'),
        data: data.toString('base64'),
      };
    },
    decrypt(secret: EncryptedSecret) {
      try {
        const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(secret.iv, 'base64'));
        decipher.setAuthTag(Buffer.from(secret.tag, 'base64'));
        return Buffer.concat([
          decipher.update(Buffer.from(secret.data, 'base64')),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        throw new Error('a partner secret could not be decrypted (wrong PARTNER_CREDENTIALS_KEY?)');
      }
    },
  };
}

/**
 * The configured key, or a fresh one with a warning outside production (secrets stored with it
 * cannot be read after a restart: register partners again).
 */
export function credentialsKey(
  configured: string | undefined,
  warn: (message: string) => void,
): Buffer {
  if (configured) return Buffer.from(configured, 'base64');
  warn(
    'PARTNER_CREDENTIALS_KEY is not set: partner secrets are encrypted with a key generated for this process only',
  );
  return randomBytes(32);
}
