import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;

/**
 * A secret encrypted at rest with AES-256-GCM: base64 of the IV, the authentication tag and the
 * ciphertext. `kid` names the key that sealed it (authenticated as additional data); it is absent
 * on secrets sealed before boxes had key ids, which every key of the ring is tried on.
 */
export interface SealedSecret {
  kid?: string;
  iv: string;
  tag: string;
  data: string;
}

/** Seals with the ring's current key; opens with whichever key of the ring a secret names. */
export interface SecretBox {
  /** Id of the current key, the one `seal` uses. */
  readonly keyId: string;
  seal(plain: string): SealedSecret;
  /** The plain text; throws a {@link SecretBoxError} that names no value. */
  open(sealed: SealedSecret): string;
}

/**
 * Why a secret could not be opened: `unknown-key`, sealed with a key the ring no longer (or not
 * yet) holds; `unreadable`, tampered with, or sealed with another key under the same id (none).
 */
export class SecretBoxError extends Error {
  constructor(
    readonly reason: 'unknown-key' | 'unreadable',
    message: string,
  ) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/**
 * The id of a 32-byte key: 12 hex digits of a SHA-256 of the key under a label of its own, so
 * operators never choose or manage ids, and an id tells nothing usable about the key.
 */
export function secretBoxKeyId(key: Uint8Array): string {
  return createHash('sha256')
    .update('marquee.secret-box.kid\0')
    .update(key)
    .digest('hex')
    .slice(0, 12);
}

interface RingKey {
  id: string;
  key: Buffer;
}

/**
 * An AES-256-GCM box over a key ring: `keys[0]` seals, every key opens what it sealed, so a key
 * can be rotated without making stored secrets unreadable (add the new key second, move it first,
 * drop the old one once nothing it sealed is left). `name` is the setting the keys come from, for
 * error messages. Each secret gets a random 12-byte IV.
 */
export function createSecretBox(keys: readonly Uint8Array[], name: string): SecretBox {
  if (keys.length === 0) throw new Error(`${name} holds no key`);
  const ring: RingKey[] = keys.map((key) => {
    if (key.length !== 32) throw new Error(`every key of ${name} must be 32 bytes`);
    return { id: secretBoxKeyId(key), key: Buffer.from(key) };
  });
  const byId = new Map(ring.map((k) => [k.id, k]));
  if (byId.size !== ring.length) throw new Error(`${name} holds the same key twice`);
  const current = ring[0]!;
  const unreadable = () =>
    new SecretBoxError(
      'unreadable',
      `a secret could not be decrypted with ${name} (tampered with, or sealed with another key)`,
    );
  return {
    keyId: current.id,
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, current.key, iv);
      cipher.setAAD(Buffer.from(current.id));
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return {
        kid: current.id,
        iv: iv.toString('base64'),
        tag: cipher.getAuthTag().toString('base64'),
        data: data.toString('base64'),
      };
    },
    open(sealed) {
      if (sealed.kid === undefined) {
        // Sealed before key ids: the tag tells which key of the ring it was.
        for (const { key } of ring) {
          const plain = decrypt(key, sealed);
          if (plain !== undefined) return plain;
        }
        throw unreadable();
      }
      const entry = byId.get(sealed.kid);
      if (!entry)
        throw new SecretBoxError(
          'unknown-key',
          `a secret is sealed with key ${sealed.kid}, which ${name} does not hold (current key ${current.id})`,
        );
      const plain = decrypt(entry.key, sealed, sealed.kid);
      if (plain === undefined) throw unreadable();
      return plain;
    },
  };
}

/** The plain text, or undefined when the tag does not verify under `key`. */
function decrypt(key: Buffer, sealed: SealedSecret, aad?: string): string | undefined {
  try {
    const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(sealed.iv, 'base64'));
    if (aad !== undefined) decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([
      decipher.update(Buffer.from(sealed.data, 'base64')),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    return undefined;
  }
}
