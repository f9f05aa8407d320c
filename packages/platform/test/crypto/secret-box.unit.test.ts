import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createSecretBox,
  parseSecretBoxKeys,
  secretBoxKeyId,
  secretBoxKeys,
  secretBoxKeysSetting,
  SecretBoxError,
  type SealedSecret,
} from '../../src/crypto/index.js';
import { sealedBeforeKeyIds } from '../../src/testing/index.js';

const NAME = 'TEST_KEY';

/** What the boxes of cart and 3p-connector wrote before key ids: no `kid`, no additional data. */
const legacySeal = sealedBeforeKeyIds;

const thrown = (run: () => unknown): SecretBoxError => {
  try {
    run();
  } catch (error) {
    if (error instanceof SecretBoxError) return error;
    throw error;
  }
  throw new Error('did not throw');
};

describe('createSecretBox', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);

  it('round-trips a secret without storing it in clear, naming its key', () => {
    const sut = createSecretBox([oldKey], NAME);
    const sealed = sut.seal('s3cret-value');
    expect(JSON.stringify(sealed)).not.toContain('s3cret-value');
    expect(sealed.kid).toBe(secretBoxKeyId(oldKey));
    expect(sut.keyId).toBe(sealed.kid);
    expect(Buffer.from(sealed.iv, 'base64')).toHaveLength(12);
    expect(sut.open(sealed)).toBe('s3cret-value');
  });

  it('uses a fresh IV for every secret', () => {
    const sut = createSecretBox([oldKey], NAME);
    expect(sut.seal('same').iv).not.toBe(sut.seal('same').iv);
  });

  it('derives a stable id from the key alone', () => {
    expect(secretBoxKeyId(Buffer.from(oldKey))).toBe(secretBoxKeyId(oldKey));
    expect(secretBoxKeyId(newKey)).not.toBe(secretBoxKeyId(oldKey));
    expect(secretBoxKeyId(oldKey)).toMatch(/^[0-9a-f]{12}$/);
  });

  it('opens what an older key sealed after a rotation, and seals with the new key', () => {
    const before = createSecretBox([oldKey], NAME).seal('sealed before');
    const adding = createSecretBox([oldKey, newKey], NAME);
    expect(adding.seal('x').kid).toBe(secretBoxKeyId(oldKey));
    const rotated = createSecretBox([newKey, oldKey], NAME);
    expect(rotated.open(before)).toBe('sealed before');
    const after = rotated.seal('sealed after');
    expect(after.kid).toBe(secretBoxKeyId(newKey));
    // A pod that only added the new key opens what a rotated pod sealed.
    expect(adding.open(after)).toBe('sealed after');
    expect(createSecretBox([newKey], NAME).open(after)).toBe('sealed after');
  });

  it('names an unknown key id clearly, without any value', () => {
    const sealed = createSecretBox([oldKey], NAME).seal('s3cret-value');
    const error = thrown(() => createSecretBox([newKey], NAME).open(sealed));
    expect(error.reason).toBe('unknown-key');
    expect(error.message).toContain(secretBoxKeyId(oldKey));
    expect(error.message).toContain(NAME);
    expect(error.message).not.toContain('s3cret-value');
  });

  it('refuses a tampered ciphertext, tag or key id', () => {
    const sut = createSecretBox([oldKey, newKey], NAME);
    const sealed = sut.seal('s3cret-value');
    const flipped = Buffer.from(sealed.data, 'base64');
    flipped[0] = flipped[0]! ^ 1;
    const cases: SealedSecret[] = [
      { ...sealed, data: flipped.toString('base64') },
      { ...sealed, tag: Buffer.alloc(16).toString('base64') },
      { ...sealed, kid: secretBoxKeyId(newKey) },
      // Stripping the id does not turn it into a legacy secret: the id is authenticated.
      { iv: sealed.iv, tag: sealed.tag, data: sealed.data },
    ];
    for (const tampered of cases)
      expect(thrown(() => sut.open(tampered)).reason).toBe('unreadable');
  });

  it('opens the legacy format (no key id) with any key of the ring', () => {
    const legacy = legacySeal(oldKey, 'legacy-value');
    expect(createSecretBox([oldKey], NAME).open(legacy)).toBe('legacy-value');
    expect(createSecretBox([newKey, oldKey], NAME).open(legacy)).toBe('legacy-value');
    expect(thrown(() => createSecretBox([newKey], NAME).open(legacy)).reason).toBe('unreadable');
  });

  it('refuses a ring that is empty, has a short key or one key twice', () => {
    expect(() => createSecretBox([], NAME)).toThrow(/TEST_KEY holds no key/);
    expect(() => createSecretBox([randomBytes(16)], NAME)).toThrow(/32 bytes/);
    expect(() => createSecretBox([oldKey, Buffer.from(oldKey)], NAME)).toThrow(/twice/);
  });
});

describe('the key ring setting', () => {
  const one = randomBytes(32).toString('base64');
  const two = randomBytes(32).toString('base64');

  it('takes one key, or several comma-separated', () => {
    expect(secretBoxKeysSetting.safeParse(one).success).toBe(true);
    expect(secretBoxKeysSetting.safeParse(`${one}, ${two}`).success).toBe(true);
    expect(parseSecretBoxKeys(`${one}, ${two}`).map((k) => k.toString('base64'))).toEqual([
      one,
      two,
    ]);
  });

  it('refuses short keys, non-base64 and repeated keys without echoing them', () => {
    for (const bad of [randomBytes(16).toString('base64'), 'not base64!', `${one},`]) {
      const result = secretBoxKeysSetting.safeParse(bad);
      expect(result.success).toBe(false);
      expect(JSON.stringify(result.error)).not.toContain(bad);
    }
    expect(secretBoxKeysSetting.safeParse(`${one},${one}`).error?.issues[0]?.message).toMatch(
      /twice/,
    );
  });

  it('generates a key with a warning when none is configured', () => {
    const warnings: string[] = [];
    const keys = secretBoxKeys(undefined, { name: NAME, consequence: 'gone at restart' }, (m) =>
      warnings.push(m),
    );
    expect(keys).toHaveLength(1);
    expect(keys[0]).toHaveLength(32);
    expect(warnings).toEqual(['TEST_KEY is not set: gone at restart']);
    expect(
      secretBoxKeys(one, { name: NAME, consequence: '' }, () => {})[0]!.toString('base64'),
    ).toBe(one);
  });
});
