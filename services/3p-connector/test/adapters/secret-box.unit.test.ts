import { createCipheriv, randomBytes } from 'node:crypto';
import { secretBoxKeyId } from '@marquee/platform/crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, credentialsKeys } from '../../src/adapters/secret-box.js';

describe('createSecretBox', () => {
  const key = randomBytes(32);

  it('round-trips a secret without storing it in clear', () => {
    const sut = createSecretBox([key]);
    const sealed = sut.encrypt('s3cret-value');
    expect(JSON.stringify(sealed)).not.toContain('s3cret-value');
    expect(Buffer.from(sealed.iv, 'base64')).toHaveLength(12);
    expect(sut.decrypt(sealed)).toBe('s3cret-value');
  });

  it('seals with the first key of the ring and names it', () => {
    const next = randomBytes(32);
    const sut = createSecretBox([next, key]);
    expect(sut.keyId).toBe(secretBoxKeyId(next));
    expect(sut.encrypt('s3cret-value').kid).toBe(sut.keyId);
    expect(sut.decrypt(createSecretBox([key]).encrypt('s3cret-value'))).toBe('s3cret-value');
  });

  it('refuses a tampered ciphertext or another key, naming the setting and no value', () => {
    const sealed = createSecretBox([key]).encrypt('s3cret-value');
    const tampered = { ...sealed, data: Buffer.from('x' + sealed.data).toString('base64') };
    expect(() => createSecretBox([key]).decrypt(tampered)).toThrow(/could not be decrypted/);
    expect(() => createSecretBox([randomBytes(32)]).decrypt(sealed)).toThrow(
      /PARTNER_CREDENTIALS_KEY does not hold/,
    );
  });

  it('reads secrets stored before key ids, also after the key was rotated', () => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const data = Buffer.concat([cipher.update('stored-before', 'utf8'), cipher.final()]);
    const stored = {
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
    };
    expect(createSecretBox([key]).decrypt(stored)).toBe('stored-before');
    expect(createSecretBox([randomBytes(32), key]).decrypt(stored)).toBe('stored-before');
  });

  it('generates a key with a warning when none is configured', () => {
    const warnings: string[] = [];
    const sut = credentialsKeys(undefined, (m) => warnings.push(m));
    expect(sut).toHaveLength(1);
    expect(sut[0]).toHaveLength(32);
    expect(warnings[0]).toMatch(/PARTNER_CREDENTIALS_KEY/);
  });
});
