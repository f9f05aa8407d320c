import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/** A recorded response, AES-256-GCM sealed under the key named by `kid`. */
export interface SealedBytes {
  kid: string;
  iv: Uint8Array;
  tag: Uint8Array;
  data: Uint8Array;
}

/**
 * How an idempotency store protects what it keeps: the request is digested with a keyed MAC (so
 * the digest of a low-entropy field cannot be searched offline) and the response kept for a
 * retry is sealed. Both name the key they used, so a key ring can be rotated: new records use the
 * current key, records written under an older key still in the ring are still answered.
 */
export interface IdempotencySecrets {
  /** `hmac:<kid>:<hex>` under the current key. */
  digest(request: Uint8Array): string;
  /** True when `recorded` is a digest under a key of the ring (it can be checked). */
  knows(recorded: string): boolean;
  /** True when `recorded` (a digest of this ring) is the digest of `request`. */
  matches(recorded: string, request: Uint8Array): boolean;
  seal(plain: Uint8Array): SealedBytes;
  /** The plain bytes; throws when the key is not in the ring or the bytes were tampered with. */
  open(sealed: SealedBytes): Uint8Array;
}

interface DerivedKey {
  kid: string;
  seal: Buffer;
  mac: Buffer;
}

const derive = (master: Buffer, label: string) =>
  Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `marquee.idempotency.${label}`, 32));

/**
 * The sealing and digest keys of an idempotency store, derived (HKDF-SHA256, one label each) from
 * 32-byte master keys, so a service can reuse the master key of its other secrets without two
 * uses ever sharing a key. The first key is current; the others only open and check old records.
 * Key ids are a fingerprint of the derived key (no key material), stable across restarts.
 */
export function idempotencySecrets(masterKeys: readonly Buffer[]): IdempotencySecrets {
  if (masterKeys.length === 0) throw new Error('idempotencySecrets needs at least one key');
  const ring: DerivedKey[] = masterKeys.map((master) => {
    if (master.length !== 32) throw new Error('an idempotency master key must be 32 bytes');
    const seal = derive(master, 'seal');
    return {
      kid: createHash('sha256').update(derive(master, 'kid')).digest('hex').slice(0, 12),
      seal,
      mac: derive(master, 'digest'),
    };
  });
  const current = ring[0]!;
  const byId = new Map(ring.map((k) => [k.kid, k]));
  const mac = (key: DerivedKey, request: Uint8Array) =>
    createHmac('sha256', key.mac).update(request).digest('hex');
  return {
    digest: (request) => `hmac:${current.kid}:${mac(current, request)}`,
    knows(recorded) {
      const [scheme, kid] = recorded.split(':');
      return scheme === 'hmac' && byId.has(kid ?? '');
    },
    matches(recorded, request) {
      const [scheme, kid, hex] = recorded.split(':');
      const key = scheme === 'hmac' ? byId.get(kid ?? '') : undefined;
      if (!key || !hex) return false;
      const expected = Buffer.from(mac(key, request), 'hex');
      const given = Buffer.from(hex, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current.seal, iv);
      cipher.setAAD(Buffer.from(current.kid));
      const data = Buffer.concat([cipher.update(plain), cipher.final()]);
      return { kid: current.kid, iv, tag: cipher.getAuthTag(), data };
    },
    open(sealed) {
      const key = byId.get(sealed.kid);
      if (!key) throw new Error('an idempotency record is sealed under a key not in the ring');
      const decipher = createDecipheriv('aes-256-gcm', key.seal, Buffer.from(sealed.iv));
      decipher.setAAD(Buffer.from(sealed.kid));
      decipher.setAuthTag(Buffer.from(sealed.tag));
      return new Uint8Array(
        Buffer.concat([decipher.update(Buffer.from(sealed.data)), decipher.final()]),
      );
    },
  };
}
