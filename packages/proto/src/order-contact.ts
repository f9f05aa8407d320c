/**
 * The sealed form of `OrderConfirmed.sealed_contact`: the buyer's OrderContact (e-mail, partner
 * account id, fan id), encrypted for the services given the contact key ring, so that a reader of
 * `order-confirmed` (analytics, its dead-letter copy, an operator's console) sees none of it.
 *
 * Format: `0x01 | key id length (1 byte) | key id (ASCII) | IV (12) | GCM tag (16) | ciphertext`.
 * AES-256-GCM (node:crypto, OpenSSL) with the order id as additional data: a sealed contact copied
 * onto another order's record does not open. The key id names the ring entry that sealed it, so
 * keys rotate without a flag day: the first entry seals, every entry opens, and a retired key is
 * dropped once the topics' retention has passed since it last sealed (docs/security.md, "Personal
 * data").
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { OrderContact } from './gen/marquee/cart/v1/order.js';

const FORMAT = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const ALGORITHM = 'aes-256-gcm';

/** A key of the contact key ring. */
export interface ContactKey {
  id: string;
  key: Buffer;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,16}$/;

/**
 * `<key id>:<base64 of 32 bytes>` entries, comma-separated, the sealing key first (the form of
 * `ORDER_CONTACT_KEYS`). Throws on a malformed ring, naming the rule and never the key.
 */
export function parseContactKeys(text: string): ContactKey[] {
  const keys = text.split(',').map((entry) => {
    const match = /^([^:]+):([A-Za-z0-9+/]+={0,2})$/.exec(entry.trim());
    const key = match ? Buffer.from(match[2]!, 'base64') : undefined;
    if (!match || !KEY_ID.test(match[1]!) || key?.length !== 32)
      throw new Error('contact keys must be <key id>:<base64 of 32 bytes>, comma-separated');
    return { id: match[1]!, key };
  });
  if (new Set(keys.map((k) => k.id)).size !== keys.length)
    throw new Error('contact key ids must be unique');
  return keys;
}

/**
 * The ring used outside production when `ORDER_CONTACT_KEYS` is unset: a fixed, public key, so a
 * local stack's cart and secure-entry agree without setup. It protects nothing; production refuses
 * to start without a ring of its own.
 */
export const DEVELOPMENT_CONTACT_KEYS: readonly ContactKey[] = Object.freeze([
  {
    id: 'dev',
    key: createHash('sha256').update('marquee development order contact key').digest(),
  },
]);

/**
 * The ring of `ORDER_CONTACT_KEYS` (validated by the service's config), or the development ring
 * with a warning when it is unset (production refuses to start without it).
 */
export function contactKeysOf(
  text: string | undefined,
  warn: (message: string) => void,
): readonly ContactKey[] {
  if (text) return parseContactKeys(text);
  warn('ORDER_CONTACT_KEYS is not set: buyer contacts are sealed with the public development key');
  return DEVELOPMENT_CONTACT_KEYS;
}

/** Seals the contact of order `orderId` with the ring's first key. */
export function sealOrderContact(
  contact: OrderContact,
  orderId: string,
  keys: readonly ContactKey[],
): Buffer {
  const [sealing] = keys;
  if (!sealing) throw new Error('the contact key ring is empty');
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, sealing.key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(orderId, 'utf8'));
  const plain = OrderContact.encode(contact).finish();
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  const id = Buffer.from(sealing.id, 'ascii');
  return Buffer.concat([Buffer.from([FORMAT, id.length]), id, iv, cipher.getAuthTag(), body]);
}

/**
 * Opens a sealed contact of order `orderId`; `undefined` when it is absent or empty (an order
 * without contact). Throws when it does not open (unknown key id, another order's, altered): the
 * consumer's retries then park the record on the dead-letter topic.
 */
export function openOrderContact(
  sealed: Uint8Array | undefined,
  orderId: string,
  keys: readonly ContactKey[],
): OrderContact | undefined {
  if (!sealed || sealed.length === 0) return undefined;
  const bytes = Buffer.from(sealed);
  const idLength = bytes[1] ?? 0;
  const headerLength = 2 + idLength;
  if (bytes[0] !== FORMAT || bytes.length < headerLength + IV_BYTES + TAG_BYTES)
    throw new Error('sealed contact: unknown format');
  const id = bytes.subarray(2, headerLength).toString('ascii');
  const key = keys.find((k) => k.id === id);
  if (!key) throw new Error(`sealed contact: no key "${id}" in the contact key ring`);
  const iv = bytes.subarray(headerLength, headerLength + IV_BYTES);
  const tag = bytes.subarray(headerLength + IV_BYTES, headerLength + IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv(ALGORITHM, key.key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(orderId, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    const plain = Buffer.concat([
      decipher.update(bytes.subarray(headerLength + IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]);
    return OrderContact.decode(plain);
  } catch {
    throw new Error('sealed contact: does not open (altered, or sealed for another order)');
  }
}
