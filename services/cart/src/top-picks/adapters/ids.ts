import { randomBytes } from 'node:crypto';
import type { TopPicksIds } from '../app/ports.js';

/** Ids from the operating system's CSPRNG: unguessable fan sessions and listing keys. */
export const cryptoIds: TopPicksIds = {
  sessionId: () => randomBytes(32).toString('base64url'),
  listingKey: () => randomBytes(16).toString('base64url'),
};
