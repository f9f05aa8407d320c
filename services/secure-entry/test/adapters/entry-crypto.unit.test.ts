import { randomBytes } from 'node:crypto';
import { secretBoxKeyId } from '@marquee/platform/crypto';
import { sealedBeforeKeyIds } from '@marquee/platform/testing';
import { describe, expect, it } from 'vitest';
import {
  createEntryCrypto,
  cryptoRandomness,
  entryKeys,
  parseKeyRing,
  type TokenKey,
} from '../../src/adapters/entry-crypto.js';

const key = (id: string): TokenKey => ({ id, key: randomBytes(32) });
const secretKeys = [randomBytes(32)];
const fixed = {
  ticketId: 'ord-1-t1',
  barcode: '4012345678901234',
  eventId: 'EvSecure0000001',
  generation: 2,
  issuedAt: 1_780_000_000,
  sandbox: false,
};

describe('sealed fixed part', () => {
  it('opens what it sealed, and seals differently every time', () => {
    const crypto = createEntryCrypto({ tokenKeys: [key('k1')], secretKeys });
    const a = crypto.seal(fixed);
    const b = crypto.seal(fixed);
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(crypto.open(a)).toEqual(fixed);
    expect(crypto.open(b)).toEqual(fixed);
  });

  it('seals the sandbox marker with the rest', () => {
    const crypto = createEntryCrypto({ tokenKeys: [key('k1')], secretKeys });
    expect(crypto.open(crypto.seal({ ...fixed, sandbox: true }))).toEqual({
      ...fixed,
      sandbox: true,
    });
    expect(crypto.open(crypto.seal(fixed))?.sandbox).toBe(false);
  });

  it('refuses tampered, truncated and foreign seals', () => {
    const mine = createEntryCrypto({ tokenKeys: [key('k1')], secretKeys });
    const theirs = createEntryCrypto({ tokenKeys: [key('k1')], secretKeys });
    const sealed = mine.seal(fixed);
    const bytes = Buffer.from(sealed, 'base64url');
    bytes[bytes.length - 1]! ^= 1;
    expect(mine.open(bytes.toString('base64url'))).toBeUndefined();
    expect(mine.open(sealed.slice(0, 20))).toBeUndefined();
    expect(mine.open('')).toBeUndefined();
    expect(mine.open('not base64 at all')).toBeUndefined();
    // Same key id, another key: the authentication tag fails.
    expect(theirs.open(sealed)).toBeUndefined();
  });

  it('rotates keys: the new key seals, retired keys still open until removed', () => {
    const old = key('k1');
    const next = key('k2');
    const before = createEntryCrypto({ tokenKeys: [old], secretKeys });
    const sealedBefore = before.seal(fixed);
    const during = createEntryCrypto({ tokenKeys: [next, old], secretKeys });
    const sealedDuring = during.seal(fixed);
    expect(during.open(sealedBefore)).toEqual(fixed);
    expect(before.open(sealedDuring)).toBeUndefined(); // sealed with k2, which it does not know
    const after = createEntryCrypto({ tokenKeys: [next], secretKeys });
    expect(after.open(sealedDuring)).toEqual(fixed);
    expect(after.open(sealedBefore)).toBeUndefined();
  });

  it('parses a key ring, active key first', () => {
    const a = randomBytes(32).toString('base64');
    const b = randomBytes(32).toString('base64');
    expect(parseKeyRing(`k2:${a}, k1:${b}`).map((k) => [k.id, k.key.toString('base64')])).toEqual([
      ['k2', a],
      ['k1', b],
    ]);
  });
});

describe('ticket secrets at rest (SECURE_ENTRY_SECRET_KEY ring)', () => {
  const tokenKeys = [key('k1')];
  const plain = cryptoRandomness.ticketSecret();

  it('seals with the first key of the ring, naming it, and opens what it sealed', () => {
    const [first, second] = [randomBytes(32), randomBytes(32)];
    const crypto = createEntryCrypto({ tokenKeys, secretKeys: [first, second] });
    const stored = crypto.encryptSecret(plain);
    expect(stored.kid).toBe(secretBoxKeyId(first));
    expect(crypto.secretKeyId).toBe(secretBoxKeyId(first));
    expect(JSON.stringify(stored)).not.toContain(plain);
    expect(crypto.decryptSecret(stored)).toBe(plain);
  });

  it('opens secrets stored before key ids, under any key of the ring', () => {
    const old = randomBytes(32);
    const legacy = sealedBeforeKeyIds(old, plain);
    expect(createEntryCrypto({ tokenKeys, secretKeys: [old] }).decryptSecret(legacy)).toBe(plain);
    const rotated = createEntryCrypto({ tokenKeys, secretKeys: [randomBytes(32), old] });
    expect(rotated.decryptSecret(legacy)).toBe(plain);
  });

  it('opens a secret sealed under the previous key after a rotation, until the key is dropped', () => {
    const [old, next] = [randomBytes(32), randomBytes(32)];
    const stored = createEntryCrypto({ tokenKeys, secretKeys: [old] }).encryptSecret(plain);
    const during = createEntryCrypto({ tokenKeys, secretKeys: [next, old] });
    expect(during.decryptSecret(stored)).toBe(plain);
    expect(during.encryptSecret(plain).kid).toBe(secretBoxKeyId(next));
    const after = createEntryCrypto({ tokenKeys, secretKeys: [next] });
    expect(() => after.decryptSecret(stored)).toThrow(
      `a secret is sealed with key ${secretBoxKeyId(old)}, which SECURE_ENTRY_SECRET_KEY does not hold`,
    );
  });

  it('fails with a clear error naming the setting, never the value, under a wrong key', () => {
    const stored = createEntryCrypto({ tokenKeys, secretKeys }).encryptSecret(plain);
    const other = createEntryCrypto({ tokenKeys, secretKeys: [randomBytes(32)] });
    const legacy = sealedBeforeKeyIds(randomBytes(32), plain);
    for (const sealed of [stored, { ...stored, kid: other.secretKeyId }, legacy]) {
      let message = '';
      try {
        other.decryptSecret(sealed);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/SECURE_ENTRY_SECRET_KEY/);
      expect(message).not.toContain(plain);
      expect(message).not.toContain(sealed.data);
    }
  });

  it('reads the ring from the setting; a missing setting warns without a value', () => {
    const [a, b] = [randomBytes(32), randomBytes(32)];
    const warnings: string[] = [];
    const keys = entryKeys(
      { secretKey: `${a.toString('base64')}, ${b.toString('base64')}` },
      (message) => warnings.push(message),
    );
    expect(keys.secretKeys).toEqual([a, b]);
    expect(warnings).toEqual([expect.stringMatching(/SECURE_ENTRY_TOKEN_KEYS is not set/)]);
    const generated = entryKeys({}, (message) => warnings.push(message));
    expect(generated.secretKeys).toHaveLength(1);
    expect(warnings[2]).toMatch(/SECURE_ENTRY_SECRET_KEY is not set/);
  });
});

describe('rotating secrets and helpers', () => {
  const crypto = createEntryCrypto({ tokenKeys: [key('k1')], secretKeys });

  it('derives two base32 secrets per generation; the second depends on the device', () => {
    const secret = cryptoRandomness.ticketSecret();
    const [a1, a2] = crypto.rotatingSecrets(secret, 1, 'device-1');
    expect(a1).toMatch(/^[A-Z2-7]{32}$/);
    expect(crypto.rotatingSecrets(secret, 1, 'device-1')).toEqual([a1, a2]);
    const [b1, b2] = crypto.rotatingSecrets(secret, 2, 'device-1');
    expect(b1).not.toBe(a1);
    expect(b2).not.toBe(a2);
    const [c1, c2] = crypto.rotatingSecrets(secret, 1, 'device-2');
    expect(c1).toBe(a1);
    expect(c2).not.toBe(a2);
  });

  it('compares in constant time and draws 16-digit barcodes', () => {
    expect(crypto.equal('abc', 'abc')).toBe(true);
    expect(crypto.equal('abc', 'abd')).toBe(false);
    expect(crypto.equal('abc', 'abcd')).toBe(false);
    for (let i = 0; i < 50; i += 1) expect(cryptoRandomness.barcode()).toMatch(/^[1-9]\d{15}$/);
  });
});
