import { describe, expect, it } from 'vitest';
import {
  codeAt,
  decodeToken,
  encodeToken,
  parsePayload,
  payloadAt,
  timeStep,
  TokenFormatError,
  type EntryToken,
} from '../src/format.js';

// RFC 6238 appendix B seed (ASCII "12345678901234567890") in base32.
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

const token = (over: Partial<EntryToken> = {}): EntryToken => ({
  version: 1,
  barcode: '4012345678901234',
  eventId: 'G5vYZ9abcdEFgh1',
  renderType: 'rotating_symbology',
  segmentType: 'ROTATING_SYMBOLOGY',
  issuedAt: 1_780_000_000,
  rotatingSecrets: [RFC_SECRET, 'JBSWY3DPEHPK3PXP'],
  fixed: 'AbC-_123',
  ...over,
});

describe('rotating codes', () => {
  it('are the RFC 6238 HOTP values of the step counter, six digits', () => {
    // RFC 6238 B: counter 1 gives 94287082 (8 digits) -> 287082 with 6 digits; 0x23523EC -> 081804.
    expect(codeAt(RFC_SECRET, 1)).toBe('287082');
    expect(codeAt(RFC_SECRET, 0x23523ec)).toBe('081804');
  });

  it('step every 15 seconds', () => {
    expect(timeStep(0)).toBe(0);
    expect(timeStep(14_999)).toBe(0);
    expect(timeStep(15_000)).toBe(1);
  });
});

describe('token', () => {
  it('round-trips through Base64 JSON', () => {
    const text = encodeToken(token());
    expect(text).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(decodeToken(text)).toEqual(token());
  });

  it('refuses what is not a token', () => {
    for (const bad of [
      '',
      'not base64 !!',
      btoa('[]'),
      btoa(JSON.stringify({ v: 2 })),
      encodeToken(token({ barcode: 'abc' })),
      encodeToken(token({ rotatingSecrets: ['ONLYONE'] })),
      encodeToken(token({ fixed: 'has:colon' })),
    ]) {
      expect(() => decodeToken(bad), bad).toThrow(TokenFormatError);
    }
  });
});

describe('payload', () => {
  it('carries the fixed part, both codes of the step and the time', () => {
    const at = 1_780_000_123_456;
    const step = timeStep(at);
    const payload = payloadAt(token(), at);
    expect(payload).toBe(
      `MQ1:AbC-_123:${codeAt(RFC_SECRET, step)}:${codeAt('JBSWY3DPEHPK3PXP', step)}:1780000123`,
    );
    expect(parsePayload(payload)).toEqual({
      fixed: 'AbC-_123',
      codes: [codeAt(RFC_SECRET, step), codeAt('JBSWY3DPEHPK3PXP', step)],
      timestamp: 1_780_000_123,
    });
  });

  it('changes with the step and not within it', () => {
    const start = 1_780_000_005_000 - (1_780_000_005_000 % 15_000);
    expect(payloadAt(token(), start).split(':').slice(0, 4)).toEqual(
      payloadAt(token(), start + 14_000)
        .split(':')
        .slice(0, 4),
    );
    expect(payloadAt(token(), start + 15_000)).not.toBe(payloadAt(token(), start));
  });

  it('is static for barcode tokens', () => {
    const t = token({ renderType: 'barcode', rotatingSecrets: [] });
    expect(payloadAt(t, 0)).toBe('MQ1:AbC-_123');
    expect(payloadAt(t, 10_000_000)).toBe('MQ1:AbC-_123');
    expect(parsePayload('MQ1:AbC-_123')).toEqual({ fixed: 'AbC-_123' });
  });

  it('refuses malformed payloads', () => {
    for (const bad of [
      '',
      'XX1:abc',
      'MQ1:',
      'MQ1:a:1:2:3',
      'MQ1:abc:12345:123456:1',
      'MQ1:abc:123456:123456:x',
      'MQ1:abc:123456:123456',
      `MQ1:${'a'.repeat(5000)}`,
    ]) {
      expect(() => parsePayload(bad), bad).toThrow(TokenFormatError);
    }
  });
});
