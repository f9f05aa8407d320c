import { describe, expect, it } from 'vitest';
import {
  cloudEventHeaders,
  deadLetterHeaders,
  readAttributes,
} from '../../src/bus/cloud-events.js';
import { backoffMs, DEFAULT_RETRY_POLICY } from '../../src/bus/delivery.js';

describe('cloudEventHeaders', () => {
  const attributes = {
    id: 'id-1',
    source: '//marquee/cart',
    type: 'marquee.cart.v1.BookingHeld',
    time: new Date(0),
  };

  it('lets extra headers through but never over a reserved one, whatever its case', () => {
    const sut = cloudEventHeaders(
      attributes,
      {
        'x-correlation-id': 'c-1',
        CE_ID: 'spoofed',
        'Content-Type': 'text/plain',
        traceparent: '00-forged',
      },
      false,
    );

    expect(sut).toEqual({
      'x-correlation-id': 'c-1',
      ce_specversion: '1.0',
      ce_id: 'id-1',
      ce_source: '//marquee/cart',
      ce_type: 'marquee.cart.v1.BookingHeld',
      ce_time: '1970-01-01T00:00:00.000Z',
      'content-type': 'application/protobuf',
    });
  });
});

describe('readAttributes', () => {
  it('falls back to the record coordinates and broker time when headers are missing or bad', () => {
    const timestamp = new Date('2025-01-01T00:00:00Z');

    const sut = readAttributes(
      { ce_time: 'not a date' },
      { topic: 't', partition: 2, offset: '41', type: 'x.v1.T', timestamp },
    );

    expect(sut).toEqual({ id: 't/2/41', source: '', type: 'x.v1.T', time: timestamp });
  });
});

describe('deadLetterHeaders', () => {
  it('keeps the original headers and bounds the error text', () => {
    const sut = deadLetterHeaders(
      { ce_id: 'id-1' },
      {
        error: new TypeError('x'.repeat(5_000)),
        attempts: 5,
        topic: 'order-confirmed',
        partition: 1,
        offset: '7',
      },
    );

    expect(sut).toMatchObject({
      ce_id: 'id-1',
      'x-dlq-attempts': '5',
      'x-dlq-original-topic': 'order-confirmed',
      'x-dlq-original-partition': '1',
      'x-dlq-original-offset': '7',
    });
    expect(sut['x-dlq-error']!.startsWith('TypeError: xxx')).toBe(true);
    expect(sut['x-dlq-error']!.length).toBeLessThanOrEqual(1_001);
  });
});

describe('backoffMs', () => {
  it('grows exponentially within ±20% jitter and stops at the cap', () => {
    const policy = {
      ...DEFAULT_RETRY_POLICY,
      initialBackoffMs: 100,
      maxBackoffMs: 1_000,
      multiplier: 2,
    };

    for (let i = 0; i < 50; i++) {
      expect(backoffMs(policy, 1)).toBeGreaterThanOrEqual(80);
      expect(backoffMs(policy, 1)).toBeLessThanOrEqual(120);
      expect(backoffMs(policy, 3)).toBeGreaterThanOrEqual(320);
      expect(backoffMs(policy, 3)).toBeLessThanOrEqual(480);
      expect(backoffMs(policy, 30)).toBeLessThanOrEqual(1_200);
    }
  });
});
