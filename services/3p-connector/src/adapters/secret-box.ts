import { createSecretBox as createPlatformBox, secretBoxKeys } from '@marquee/platform/crypto';
import type { SecretBox } from '../app/ports.js';

const SETTING = 'PARTNER_CREDENTIALS_KEY';

/**
 * The box of partner client secrets and access codes at rest: the platform's AES-256-GCM box over
 * PARTNER_CREDENTIALS_KEY's ring (the first key seals; the others still open, for a rotation).
 */
export function createSecretBox(keys: readonly Buffer[]): SecretBox {
  const box = createPlatformBox(keys, SETTING);
  return {
    keyId: box.keyId,
    encrypt: (plain) => box.seal(plain),
    decrypt: (secret) => box.open(secret),
  };
}

/**
 * The configured ring, or a fresh key with a warning outside production (secrets stored with it
 * cannot be read after a restart: register partners again).
 */
export function credentialsKeys(
  configured: string | undefined,
  warn: (message: string) => void,
): Buffer[] {
  return secretBoxKeys(
    configured,
    {
      name: SETTING,
      consequence: 'partner secrets are encrypted with a key generated for this process only',
    },
    warn,
  );
}
