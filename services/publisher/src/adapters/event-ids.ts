import { randomInt } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Event ids are 15 alphanumeric characters (the form discovery and the partner cart API use). */
export const EVENT_ID_LENGTH = 15;

/**
 * An unguessable event id: 15 characters drawn uniformly from 62 with the CSPRNG (~89 bits), so ids
 * can be public without being enumerable.
 */
export function newEventId(): string {
  let id = '';
  for (let i = 0; i < EVENT_ID_LENGTH; i += 1) id += ALPHABET[randomInt(ALPHABET.length)];
  return id;
}
