import { randomBytes } from 'node:crypto';
import type { IdGenerator } from '../app/ports.js';

/**
 * Inventory tokens: `B-` and 16 random bytes in base64url (128 bits: not guessable, path-safe).
 * Catalogue ids: a prefix and 10 random bytes in hex.
 */
export const randomIds: IdGenerator = {
  token: () => `B-${randomBytes(16).toString('base64url')}`,
  id: (prefix) => `${prefix}-${randomBytes(10).toString('hex')}`,
};
