import { describe, expect, it } from 'vitest';
import { deliver, DEFAULT_RETRY_POLICY } from '../../src/bus/delivery.js';
import {
  isSignedTopic,
  RecordSignatureError,
  SIGNATURE_HEADER,
  signatureProblem,
  signRecord,
  type SignedRecord,
} from '../../src/bus/record-signature.js';
import { generateServiceAuthKey, ServiceKeyring } from '../../src/grpc/service-token.js';

const key = generateServiceAuthKey();
const keyring = ServiceKeyring.parse(key);
const record: SignedRecord = {
  topic: 'order-confirmed',
  key: 'order-1',
  value: new Uint8Array([1, 2, 3]),
  headers: {
    ce_id: 'id-1',
    ce_type: 'marquee.cart.v1.OrderConfirmed',
    ce_time: '2026-01-01T00:00:00Z',
  },
};
const signedBy = (signer: ServiceKeyring, producer: string, what = record): SignedRecord => ({
  ...what,
  headers: {
    ...what.headers,
    [SIGNATURE_HEADER]: signRecord({ producer, keyring: signer }, what),
  },
});

describe('record signatures', () => {
  it('signs the command-like topics only', () => {
    for (const topic of [
      'order-confirmed',
      'order-cancelled',
      'fan-deleted',
      'booking-held',
      'ticket-issued',
    ])
      expect(isSignedTopic(topic)).toBe(true);
    for (const topic of ['event-changed', 'order-printed', 'order-confirmed.dlq', 'deal-changed'])
      expect(isSignedTopic(topic)).toBe(false);
  });

  it('accepts a record signed by a producer of the topic', () => {
    expect(signatureProblem(keyring, signedBy(keyring, 'cart'), ['cart'])).toBeUndefined();
  });

  it('refuses an unsigned record, a malformed header and a non-producer', () => {
    expect(signatureProblem(keyring, record, ['cart'])).toMatch(/unsigned/);
    expect(
      signatureProblem(
        keyring,
        { ...record, headers: { ...record.headers, [SIGNATURE_HEADER]: 'v1.cart' } },
        ['cart'],
      ),
    ).toMatch(/malformed/);
    expect(signatureProblem(keyring, signedBy(keyring, 'deals'), ['cart'])).toMatch(
      /deals does not produce/,
    );
  });

  it('refuses a signature made with another key', () => {
    const other = ServiceKeyring.parse(generateServiceAuthKey());
    expect(signatureProblem(keyring, signedBy(other, 'cart'), ['cart'])).toMatch(/bad record/);
  });

  it('refuses a signed record whose value, key or id was changed', () => {
    const signed = signedBy(keyring, 'cart');
    for (const tampered of [
      { ...signed, value: new Uint8Array([1, 2, 4]) },
      { ...signed, key: 'order-2' },
      { ...signed, value: null },
      { ...signed, headers: { ...signed.headers, ce_id: 'id-2' } },
    ])
      expect(signatureProblem(keyring, tampered, ['cart'])).toMatch(/bad record/);
  });

  it('verifies with every key of a rotation, signs with the first', () => {
    const next = generateServiceAuthKey();
    const old = signedBy(keyring, 'cart');
    const rotated = ServiceKeyring.parse(`${next},${key}`);
    expect(signatureProblem(rotated, old, ['cart'])).toBeUndefined();
    expect(
      signatureProblem(ServiceKeyring.parse(next), signedBy(rotated, 'cart'), ['cart']),
    ).toBeUndefined();
  });

  it('never puts key material into the header', () => {
    const header = signedBy(keyring, 'cart').headers[SIGNATURE_HEADER]!;
    expect(header.startsWith('v1.cart.')).toBe(true);
    expect(header).not.toContain(key);
  });
});

describe('deliver with a signature check', () => {
  const logger = { debug() {}, info() {}, warn() {}, error() {} };

  it('dead-letters a refused record without calling the handler', async () => {
    let calls = 0;
    const outcome = await deliver({
      system: 'kafka',
      topic: {
        name: 'order-confirmed',
        type: 't',
        keyDescription: '',
        compacted: false,
        retentionMs: 1,
        producer: 'cart',
        codec: { encode: (v: Uint8Array) => v, decode: (b: Uint8Array) => b },
      },
      group: 'secure-entry',
      record: { ...record, partition: 0, offset: '0', timestamp: new Date(), value: record.value },
      handler: () => {
        calls++;
        return Promise.resolve();
      },
      maxAttempts: 3,
      retry: DEFAULT_RETRY_POLICY,
      signal: new AbortController().signal,
      logger,
      verify: (received) => signatureProblem(keyring, received, ['cart']),
    });

    expect(calls).toBe(0);
    expect(outcome.kind).toBe('dead-letter');
    expect(outcome.kind === 'dead-letter' && outcome.error).toBeInstanceOf(RecordSignatureError);
  });
});
