import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  randomBytes,
  randomInt,
  randomUUID,
  timingSafeEqual,
} from 'node:crypto';
import { createSecretBox, secretBoxKeys } from '@marquee/platform/crypto';
import { Secret } from 'otpauth';
import type { EntryCrypto, Randomness } from '../app/ports.js';
import type { FixedPart } from '../domain/model.js';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT = 1;
const AAD = 'marquee.entry.fixed.v1';

/** A token key: its id travels in the sealed part so any key of the ring can open it. */
export interface TokenKey {
  id: string;
  key: Buffer;
}

/** `k1:<base64>,k0:<base64>` (validated by config.ts) as keys, the active one first. */
export function parseKeyRing(text: string): TokenKey[] {
  return text.split(',').map((entry) => {
    const [id, key] = entry.trim().split(':') as [string, string];
    return { id, key: Buffer.from(key, 'base64') };
  });
}

/** The setting of the ring that seals per-ticket secrets at rest. */
const SECRET_KEY_SETTING = 'SECURE_ENTRY_SECRET_KEY';

/**
 * The keys in use: the configured ones, or one key generated for this process with a warning
 * outside production (tokens and stored secrets then do not survive a restart).
 * `SECURE_ENTRY_SECRET_KEY` is a ring of base64 keys, comma-separated, the first sealing.
 */
export function entryKeys(
  config: { tokenKeys?: string | undefined; secretKey?: string | undefined },
  warn: (message: string) => void,
): { tokenKeys: TokenKey[]; secretKeys: Buffer[] } {
  let tokenKeys: TokenKey[];
  if (config.tokenKeys) tokenKeys = parseKeyRing(config.tokenKeys);
  else {
    warn(
      'SECURE_ENTRY_TOKEN_KEYS is not set: tokens are sealed with a key generated for this process only',
    );
    tokenKeys = [{ id: 'dev', key: randomBytes(32) }];
  }
  const secretKeys = secretBoxKeys(
    config.secretKey,
    {
      name: SECRET_KEY_SETTING,
      consequence: 'ticket secrets are encrypted with a key generated for this process only',
    },
    warn,
  );
  return { tokenKeys, secretKeys };
}

/**
 * AES-256-GCM for the sealed part of tokens (key ring with ids) and for per-ticket secrets at rest
 * (the platform's secret box over the `SECURE_ENTRY_SECRET_KEY` ring: the first key seals, every
 * key opens; secrets stored before key ids open with whichever key of the ring fits), HMAC-SHA-256
 * for the rotating secrets, SHA-256 for lookups by hash. Errors never carry a value.
 */
export function createEntryCrypto(keys: {
  tokenKeys: TokenKey[];
  secretKeys: readonly Buffer[];
}): EntryCrypto {
  if (keys.tokenKeys.length === 0) throw new Error('the token key ring is empty');
  for (const k of keys.tokenKeys) {
    if (k.key.length !== 32) throw new Error('secure-entry keys must be 32 bytes');
  }
  const active = keys.tokenKeys[0]!;
  const byId = new Map(keys.tokenKeys.map((k) => [k.id, k.key]));
  const box = createSecretBox(keys.secretKeys, SECRET_KEY_SETTING);

  return {
    secretKeyId: box.keyId,
    encryptSecret: (plain) => box.seal(plain),
    decryptSecret: (secret) => box.open(secret),
    seal: (fixed) => seal(active, fixed),
    open: (sealed) => open(byId, sealed),
    rotatingSecrets,
    sha256Hex: (text) => createHash('sha256').update(text, 'utf8').digest('hex'),
    equal(a, b) {
      const left = Buffer.from(a, 'utf8');
      const right = Buffer.from(b, 'utf8');
      return left.length === right.length && timingSafeEqual(left, right);
    },
  };
}

/** Seals the fixed part with the active key: format, key id, IV, tag and ciphertext, base64url. */
function seal(active: TokenKey, fixed: FixedPart): string {
  const kid = Buffer.from(active.id, 'ascii');
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, active.key, iv);
  cipher.setAAD(Buffer.from(`${AAD}:${active.id}`));
  const plain = JSON.stringify({
    t: fixed.ticketId,
    b: fixed.barcode,
    e: fixed.eventId,
    g: fixed.generation,
    i: fixed.issuedAt,
    // Sealed with the rest: a sandbox token cannot be turned into a production one.
    ...(fixed.sandbox ? { s: 1 } : {}),
  });
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([
    Buffer.from([FORMAT, kid.length]),
    kid,
    iv,
    cipher.getAuthTag(),
    data,
  ]).toString('base64url');
}

/** Opens a sealed part with the key of its id; undefined for anything not sealed by the ring. */
function open(byId: Map<string, Buffer>, sealed: string): FixedPart | undefined {
  try {
    const bytes = Buffer.from(sealed, 'base64url');
    // One spelling per sealed part: Node's decoder skips characters outside the alphabet and
    // ignores the unused bits of the last one, so other texts would open to the same bytes.
    if (bytes.toString('base64url') !== sealed) return undefined;
    if (bytes.length < 2 || bytes[0] !== FORMAT) return undefined;
    const kidLength = bytes[1]!;
    const kid = bytes.subarray(2, 2 + kidLength).toString('ascii');
    const key = byId.get(kid);
    if (!key) return undefined;
    let offset = 2 + kidLength;
    const iv = bytes.subarray(offset, (offset += IV_BYTES));
    const tag = bytes.subarray(offset, (offset += TAG_BYTES));
    const data = bytes.subarray(offset);
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES || data.length === 0) return undefined;
    const decipher = createDecipheriv(ALGORITHM, key, iv);
    decipher.setAAD(Buffer.from(`${AAD}:${kid}`));
    decipher.setAuthTag(tag);
    const plain = Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
    return fixedPartOf(JSON.parse(plain) as Record<string, unknown>);
  } catch {
    return undefined;
  }
}

/** The fixed part from its sealed JSON; undefined when a field is missing or mistyped. */
function fixedPartOf(o: Record<string, unknown>): FixedPart | undefined {
  if (
    typeof o.t !== 'string' ||
    typeof o.b !== 'string' ||
    typeof o.e !== 'string' ||
    typeof o.g !== 'number' ||
    typeof o.i !== 'number'
  ) {
    return undefined;
  }
  return {
    ticketId: o.t,
    barcode: o.b,
    eventId: o.e,
    generation: o.g,
    issuedAt: o.i,
    sandbox: o.s === 1,
  };
}

/** The two TOTP secrets of a ticket's generation, derived from its secret by HMAC-SHA-256. */
function rotatingSecrets(
  ticketSecret: string,
  generation: number,
  deviceId: string,
): [string, string] {
  const key = Buffer.from(ticketSecret, 'base64');
  const derive = (label: string) =>
    new Secret({
      buffer: new Uint8Array(createHmac('sha256', key).update(label).digest().subarray(0, 20))
        .buffer,
    }).base32;
  // The first code is the ticket's; the second also binds the device the tickets are bound to.
  return [
    derive(`marquee.entry.code1|${generation}`),
    derive(`marquee.entry.code2|${generation}|${deviceId}`),
  ];
}

/** Randomness from node:crypto. */
export const cryptoRandomness: Randomness = {
  barcode() {
    let digits = String(randomInt(1, 10));
    while (digits.length < 16) digits += String(randomInt(0, 10));
    return digits;
  },
  ticketSecret: () => randomBytes(32).toString('base64'),
  gateId: () => `g${randomBytes(8).toString('hex')}`,
  gateSecret: () => randomBytes(32).toString('base64url'),
  scanId: () => randomUUID(),
};
