import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createEntryCrypto,
  cryptoRandomness,
  parseKeyRing,
  type TokenKey,
} from '../../src/adapters/entry-crypto.js';

const key = (id: string): TokenKey => ({ id, key: randomBytes(32) });
const secretKey = randomBytes(32);
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
    const crypto = createEntryCrypto({ tokenKeys: [key('k1')], secretKey });
    const a = crypto.seal(fixed);
    const b = crypto.seal(fixed);
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(crypto.open(a)).toEqual(fixed);
    expect(crypto.open(b)).toEqual(fixed);
  });

  it('seals the sandbox marker with the rest', () => {
    const crypto = createEntryCrypto({ tokenKeys: [key('k1')], secretKey });
    expect(crypto.open(crypto.seal({ ...fixed, sandbox: true }))).toEqual({
      ...fixed,
      sandbox: true,
    });
    expect(crypto.open(crypto.seal(fixed))?.sandbox).toBe(false);
  });

  it('refuses tampered, truncated and foreign seals', () => {
    const mine = createEntryCrypto({ tokenKeys: [key('k1')], secretKey });
    const theirs = createEntryCrypto({ tokenKeys: [key('k1')], secretKey });
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
    const before = createEntryCrypto({ tokenKeys: [old], secretKey });
    const sealedBefore = before.seal(fixed);
    const during = createEntryCrypto({ tokenKeys: [next, old], secretKey });
    const sealedDuring = during.seal(fixed);
    expect(during.open(sealedBefore)).toEqual(fixed);
    expect(before.open(sealedDuring)).toBeUndefined(); // sealed with k2, which it does not know
    const after = createEntryCrypto({ tokenKeys: [next], secretKey });
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

describe('ticket secrets and rotating secrets', () => {
  const crypto = createEntryCrypto({ tokenKeys: [key('k1')], secretKey });

  it('encrypts ticket secrets at rest and decrypts them', () => {
    const plain = cryptoRandomness.ticketSecret();
    const stored = crypto.encryptSecret(plain);
    expect(JSON.stringify(stored)).not.toContain(plain);
    expect(crypto.decryptSecret(stored)).toBe(plain);
    const other = createEntryCrypto({ tokenKeys: [key('k1')], secretKey: randomBytes(32) });
    expect(() => other.decryptSecret(stored)).toThrow(/could not be decrypted/);
  });

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
