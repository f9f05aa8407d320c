import { describe, expect, it } from 'vitest';
import { waitingRoomIds } from '../../src/waiting-room/adapters/ids.js';

describe('queue ticket ids', () => {
  const ids = waitingRoomIds(Buffer.alloc(32, 5));
  const place = { eventId: 'E1', appId: 'app-1', identity: 'device:d1' };

  it('name one place the same each time, and every other place otherwise', () => {
    const id = ids.queueTicketId(place);
    expect(id).toMatch(/^q_[A-Za-z0-9_-]{27}$/);
    expect(ids.queueTicketId({ ...place })).toBe(id);
    const others = [
      { ...place, eventId: 'E2' },
      { ...place, appId: 'app-2' },
      { ...place, identity: 'device:d2' },
      { ...place, identity: 'fan:d1' },
    ].map((p) => ids.queueTicketId(p));
    expect(new Set([id, ...others]).size).toBe(5);
  });

  it('depend on the key, so no one without it can name a place', () => {
    expect(waitingRoomIds(Buffer.alloc(32, 6)).queueTicketId(place)).not.toBe(
      ids.queueTicketId(place),
    );
  });

  it('draw lottery numbers over [0, 2^48)', () => {
    const draws = Array.from({ length: 2_000 }, () => ids.lottery());
    expect(draws.every((n) => Number.isInteger(n) && n >= 0 && n < 2 ** 48)).toBe(true);
    // Both halves of the range are reached (the high 24 bits are drawn too).
    expect(draws.some((n) => n >= 2 ** 47)).toBe(true);
    expect(draws.some((n) => n < 2 ** 47)).toBe(true);
  });
});
