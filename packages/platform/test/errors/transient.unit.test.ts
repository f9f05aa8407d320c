import { describe, expect, it } from 'vitest';
import { isTransientError } from '../../src/errors/transient.js';

const named = (name: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error('boom'), { name, ...extra });

describe('isTransientError', () => {
  it.each([
    'MongoNetworkError',
    'MongoServerSelectionError',
    'MongoNotConnectedError',
    'KafkaJSConnectionError',
    'KafkaJSNumberOfRetriesExceeded',
  ])('knows %s passes by itself', (name) => {
    expect(isTransientError(named(name))).toBe(true);
  });

  it('knows a server error labelled retryable, and one wrapped as the cause', () => {
    const labelled = named('MongoServerError', { errorLabelSet: new Set(['RetryableWriteError']) });
    expect(isTransientError(labelled)).toBe(true);
    expect(isTransientError(new Error('wrapped', { cause: named('MongoNetworkError') }))).toBe(
      true,
    );
  });

  it('treats bugs and refusals as not transient', () => {
    expect(isTransientError(new TypeError('x is undefined'))).toBe(false);
    expect(isTransientError(named('MongoServerError', { code: 11000 }))).toBe(false);
    expect(isTransientError('text')).toBe(false);
  });
});
