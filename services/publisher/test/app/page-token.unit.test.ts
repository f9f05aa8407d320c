import { describe, expect, it } from 'vitest';
import { decodePageToken, encodePageToken } from '../../src/app/page-token.js';

describe('page tokens', () => {
  it('name the position they were made from, in URL-safe characters', () => {
    const position = { createdAt: new Date('2026-03-01T10:00:00.123Z'), id: 'Z7r9jZ1A7aFqK0v' };
    const token = encodePageToken(position);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodePageToken(token)).toEqual(position);
  });

  it.each([
    ['empty JSON array', Buffer.from('[]').toString('base64url')],
    ['a fractional instant', Buffer.from('[1.5,"abc"]').toString('base64url')],
    ['an instant out of range', Buffer.from('[9007199254740991,"abc"]').toString('base64url')],
    ['padding', `${Buffer.from('[1,"abc"]').toString('base64')}==`],
  ])('refuses %s', (_label, token) => {
    expect(() => decodePageToken(token)).toThrow(
      expect.objectContaining({ kind: 'invalid_argument' }),
    );
  });
});
