import { createCipheriv, randomBytes } from 'node:crypto';
import type { SealedSecret } from '../crypto/index.js';

/**
 * A secret as the services' own AES-256-GCM boxes stored it before the platform's secret box
 * (cart, 3p-connector, secure-entry): random IV, no additional data, no `kid`. For tests that
 * stored values of that format still open and are re-sealed.
 */
export function sealedBeforeKeyIds(key: Uint8Array, plain: string): SealedSecret {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return {
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    data: data.toString('base64'),
  };
}
