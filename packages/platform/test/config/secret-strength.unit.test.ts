import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config/load-config.js';
import {
  randomSecret,
  secretStrength,
  weakSecretReason,
} from '../../src/config/secret-strength.js';

describe('secretStrength: length × log2(alphabet) of the detected encoding', () => {
  it('detects hex (either case), base64 and base64url, padding counting for nothing', () => {
    expect(secretStrength('0f1e2d3c4b5a69788796a5b4c3d2e1f0')).toEqual({
      encoding: 'hex',
      bits: 128,
      repeated: false,
    });
    expect(secretStrength('0F1E2D3C4B5A69788796a5b4c3d2e1f0').encoding).toBe('hex');
    expect(secretStrength('ab+/cdefghijklmnopqrstuv')).toMatchObject({
      encoding: 'base64',
      bits: 144,
    });
    expect(secretStrength('ab-_cdefghijklmnopqrstuv')).toMatchObject({
      encoding: 'base64url',
      bits: 144,
    });
    // 16 bytes in base64: 22 characters of data and two of padding, 132 bits.
    expect(secretStrength(randomBytes(16).toString('base64').replace(/=*$/, '=='))).toMatchObject({
      bits: 132,
    });
  });

  it('gives no bits to values outside the encodings or repeating one unit', () => {
    expect(secretStrength('correct horse battery staple!')).toEqual({
      encoding: undefined,
      bits: 0,
      repeated: false,
    });
    expect(secretStrength('ab'.repeat(40))).toMatchObject({ bits: 0, repeated: true });
    expect(secretStrength('0123456789abcdef'.repeat(4))).toMatchObject({ bits: 0, repeated: true });
  });
});

describe('weakSecretReason (128 bits by default)', () => {
  it('passes every random token of 128 bits or more, whatever its characters happen to be', () => {
    // 48 hex characters (openssl rand -hex 24) often hold fewer than 16 different ones: a rule
    // counting different characters refused about half of them.
    for (let i = 0; i < 500; i++) {
      expect(weakSecretReason(randomBytes(24).toString('hex'))).toBeUndefined();
      expect(weakSecretReason(randomBytes(16).toString('hex'))).toBeUndefined();
      expect(weakSecretReason(randomBytes(16).toString('base64'))).toBeUndefined();
      expect(weakSecretReason(randomBytes(17).toString('base64url'))).toBeUndefined();
    }
  });

  it('refuses weaker ones, naming the rule and the bits held', () => {
    expect(weakSecretReason(randomBytes(15).toString('hex'))).toMatch(
      /at least 128 bits of entropy .*this hex value holds 120/,
    );
    // 21 base64url characters: 126 bits.
    expect(weakSecretReason(randomBytes(21).toString('base64url').slice(0, 21))).toMatch(
      /this base64(url)? value holds 126/,
    );
    expect(weakSecretReason('ci-admin-token')).toMatch(/holds 84/);
    expect(weakSecretReason('a sentence is no token at all, however long')).toMatch(
      /hex, base64 or base64url/,
    );
    expect(weakSecretReason('xy'.repeat(30))).toMatch(/repeats one shorter part/);
  });

  it('takes another threshold', () => {
    const token = randomBytes(32).toString('hex');
    expect(weakSecretReason(token, 256)).toBeUndefined();
    expect(weakSecretReason(token.slice(0, 63), 256)).toMatch(/at least 256 bits/);
  });
});

describe('randomSecret in a config schema', () => {
  const schema = z.object({ TOKEN: randomSecret().optional() });

  it('loads a strong token and refuses a weak one without echoing it', () => {
    const strong = randomBytes(16).toString('hex');
    expect(loadConfig(schema, { TOKEN: strong }).TOKEN).toBe(strong);
    const weak = randomBytes(12).toString('hex');
    expect(() => loadConfig(schema, { TOKEN: weak })).toThrow(/TOKEN: must hold at least 128 bits/);
    try {
      loadConfig(schema, { TOKEN: weak });
    } catch (error) {
      expect((error as Error).message).not.toContain(weak);
    }
  });
});
