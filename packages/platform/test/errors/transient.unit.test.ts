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

  it("knows Node's socket errors, which the Mongo driver sometimes passes on unwrapped", () => {
    // What a write to a socket the server had just closed rejected with, under a FerretDB restart.
    const ended = Object.assign(new Error('This socket has been ended by the other party'), {
      code: 'EPIPE',
    });
    expect(isTransientError(ended)).toBe(true);
    expect(isTransientError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isTransientError(Object.assign(new Error('no file'), { code: 'ENOENT' }))).toBe(false);
  });

  it('treats bugs and refusals as not transient', () => {
    expect(isTransientError(new TypeError('x is undefined'))).toBe(false);
    expect(isTransientError(named('MongoServerError', { code: 11000 }))).toBe(false);
    expect(isTransientError('text')).toBe(false);
  });
});
