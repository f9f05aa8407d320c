import { randomInt, randomUUID } from 'node:crypto';
import type { Ids } from '../app/ports.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomString(length: number): string {
  let id = '';
  for (let i = 0; i < length; i += 1) id += ALPHABET[randomInt(ALPHABET.length)];
  return id;
}

/** Event ids: 15 characters drawn uniformly from 62 with the CSPRNG (as publisher's). */
export const randomIds: Ids = {
  eventId: () => randomString(15),
  partnerId: () => `p${randomString(11)}`,
  failureId: () => randomUUID(),
};
