import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, credentialsKey } from '../../src/adapters/secret-box.js';

describe('createSecretBox', () => {
  const key = randomBytes(32);

  it('round-trips a secret without storing it in clear', () => {
    const sut = createSecretBox(key);
    const sealed = sut.encrypt('s3cret-value');
    expect(JSON.stringify(sealed)).not.toContain('s3cret-value');
    expect(Buffer.from(sealed.iv, 'base64')).toHaveLength(12);
    expect(sut.decrypt(sealed)).toBe('s3cret-value');
  });

  it('uses a fresh IV for every secret', () => {
    const sut = createSecretBox(key);
    expect(sut.encrypt('same').iv).not.toBe(sut.encrypt('same').iv);
  });

  it('refuses a tampered ciphertext or another key, naming no value', () => {
    const sealed = createSecretBox(key).encrypt('s3cret-value');
    const tampered = { ...sealed, data: Buffer.from('x' + sealed.data).toString('base64') };
    expect(() => createSecretBox(key).decrypt(tampered)).toThrow(/could not be decrypted/);
    expect(() => createSecretBox(randomBytes(32)).decrypt(sealed)).toThrow(
      /could not be decrypted/,
    );
  });

  it('generates a key with a warning when none is configured', () => {
    const warnings: string[] = [];
    const sut = credentialsKey(undefined, (m) => warnings.push(m));
    expect(sut).toHaveLength(32);
    expect(warnings[0]).toMatch(/PARTNER_CREDENTIALS_KEY/);
  });
});
