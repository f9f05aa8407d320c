import { describe, expect, it } from 'vitest';
import {
  AppError,
  ERROR_KINDS,
  httpStatusForKind,
  isAppErrorLike,
} from '../../src/errors/index.js';

describe('AppError', () => {
  it('carries kind, message, details and cause', () => {
    const cause = new Error('low level');
    const sut = new AppError('not_found', 'event 42 not found', {
      details: { eventId: '42' },
      cause,
    });

    expect(sut).toBeInstanceOf(Error);
    expect(sut.kind).toBe('not_found');
    expect(sut.message).toBe('event 42 not found');
    expect(sut.details).toEqual({ eventId: '42' });
    expect(sut.cause).toBe(cause);
  });
});

describe('isAppErrorLike', () => {
  it('recognises a domain error that never imported the platform', () => {
    class SeatTaken extends Error {
      readonly kind = 'failed_precondition' as const;
    }

    expect(isAppErrorLike(new SeatTaken('seat A1 is taken'))).toBe(true);
  });

  it.each([
    ['an unknown kind', Object.assign(new Error('x'), { kind: 'teapot' })],
    ['a plain error', new Error('x')],
    ['a kind without a message', { kind: 'not_found' }],
    ['array details', Object.assign(new Error('x'), { kind: 'not_found', details: [1] })],
    ['null', null],
    ['a string', 'not_found'],
  ])('rejects %s', (_label, value) => {
    expect(isAppErrorLike(value)).toBe(false);
  });
});

describe('httpStatusForKind', () => {
  it('gives every kind a status, 5xx only for server-side faults', () => {
    const serverSide = new Set(['unavailable', 'deadline_exceeded', 'internal']);
    for (const kind of ERROR_KINDS) {
      expect(httpStatusForKind(kind) >= 500).toBe(serverSide.has(kind));
    }
    expect(httpStatusForKind('not_found')).toBe(404);
    expect(httpStatusForKind('resource_exhausted')).toBe(429);
  });
});
