import { describe, expect, it } from 'vitest';
import { InMemorySoldOutBook, tellingPlacesBack } from '../src/app/core/sold-out-book.js';

const EVENT = 'E0000000000001A';
const OTHER = 'E0000000000002B';

function book(ttlMs = 2_000, maxEvents?: number) {
  const clock = { t: new Date('2030-06-01T12:00:00Z') };
  const soldOut = new InMemorySoldOutBook({ now: () => clock.t }, ttlMs, maxEvents);
  const advance = (ms: number) => (clock.t = new Date(clock.t.getTime() + ms));
  return { soldOut, advance };
}

describe('InMemorySoldOutBook', () => {
  it('knows a price level sold out for the refused quantity and more, not for less', () => {
    const { soldOut } = book();
    expect(soldOut.isSoldOut(EVENT, ['PL1'])).toBe(false);
    soldOut.markSoldOut(EVENT, ['PL1'], 2);
    expect(soldOut.hasEntries(EVENT)).toBe(true);
    expect(soldOut.isSoldOut(EVENT, ['PL1'], 2)).toBe(true);
    expect(soldOut.isSoldOut(EVENT, ['PL1'], 4)).toBe(true);
    expect(soldOut.isSoldOut(EVENT, ['PL1'], 1)).toBe(false);
    // Another level, the event at any level, another event: not known sold out.
    expect(soldOut.isSoldOut(EVENT, ['PL2'], 2)).toBe(false);
    expect(soldOut.isSoldOut(EVENT, ['PL1', 'PL2'], 2)).toBe(false);
    expect(soldOut.isSoldOut(EVENT, [], 2)).toBe(false);
    expect(soldOut.isSoldOut(EVENT, [''], 2)).toBe(false);
    expect(soldOut.isSoldOut(OTHER, ['PL1'], 2)).toBe(false);
    // A smaller refusal lowers the bar.
    soldOut.markSoldOut(EVENT, ['PL1'], 1);
    expect(soldOut.isSoldOut(EVENT, ['PL1'], 1)).toBe(true);
  });

  it('a refusal of any level covers every level of the event', () => {
    const { soldOut } = book();
    soldOut.markSoldOut(EVENT, [], 1);
    expect(soldOut.isSoldOut(EVENT, [])).toBe(true);
    expect(soldOut.isSoldOut(EVENT, ['PL1'])).toBe(true);
    expect(soldOut.isSoldOut(EVENT, ['PL1', 'PL2'], 3)).toBe(true);
    const other = book().soldOut;
    other.markSoldOut(EVENT, ['PL1', ''], 1);
    expect(other.isSoldOut(EVENT, ['PL2'])).toBe(true);
  });

  it('marks nothing for a refusal of several named levels at once', () => {
    const { soldOut } = book();
    soldOut.markSoldOut(EVENT, ['PL1', 'PL2'], 2);
    expect(soldOut.hasEntries(EVENT)).toBe(false);
    expect(soldOut.isSoldOut(EVENT, ['PL1'], 2)).toBe(false);
  });

  it('every level named must be sold out', () => {
    const { soldOut } = book();
    soldOut.markSoldOut(EVENT, ['PL1'], 1);
    soldOut.markSoldOut(EVENT, ['PL2'], 1);
    expect(soldOut.isSoldOut(EVENT, ['PL1', 'PL2'])).toBe(true);
    expect(soldOut.isSoldOut(EVENT, ['PL1', 'PL3'])).toBe(false);
  });

  it('forgets an entry after its TTL; a new refusal starts it again', () => {
    const { soldOut, advance } = book(2_000);
    soldOut.markSoldOut(EVENT, ['PL1'], 1);
    advance(1_999);
    expect(soldOut.isSoldOut(EVENT, ['PL1'])).toBe(true);
    soldOut.markSoldOut(EVENT, ['PL1'], 1);
    advance(1_999);
    expect(soldOut.isSoldOut(EVENT, ['PL1'])).toBe(true);
    advance(1);
    expect(soldOut.isSoldOut(EVENT, ['PL1'])).toBe(false);
    expect(soldOut.hasEntries(EVENT)).toBe(false);
  });

  it('an expired entry does not lower the bar of a new one', () => {
    const { soldOut, advance } = book(2_000);
    soldOut.markSoldOut(EVENT, ['PL1'], 1);
    advance(2_000);
    soldOut.markSoldOut(EVENT, ['PL1'], 3);
    expect(soldOut.isSoldOut(EVENT, ['PL1'], 1)).toBe(false);
    expect(soldOut.isSoldOut(EVENT, ['PL1'], 3)).toBe(true);
  });

  it('clear reopens the levels given and the event at any level, or the whole event', () => {
    const { soldOut } = book();
    soldOut.markSoldOut(EVENT, ['PL1'], 1);
    soldOut.markSoldOut(EVENT, ['PL2'], 1);
    soldOut.markSoldOut(EVENT, [], 1);
    soldOut.clear(EVENT, ['PL1']);
    expect(soldOut.isSoldOut(EVENT, ['PL1'])).toBe(false);
    expect(soldOut.isSoldOut(EVENT, [])).toBe(false);
    expect(soldOut.isSoldOut(EVENT, ['PL2'])).toBe(true);
    soldOut.clear(EVENT);
    expect(soldOut.isSoldOut(EVENT, ['PL2'])).toBe(false);
    expect(soldOut.hasEntries(EVENT)).toBe(false);
  });

  it('a TTL of 0 turns it off', () => {
    const { soldOut } = book(0);
    soldOut.markSoldOut(EVENT, [], 1);
    expect(soldOut.isSoldOut(EVENT, [])).toBe(false);
  });

  it('keeps at most maxEvents events, forgetting the oldest first', () => {
    const { soldOut } = book(2_000, 2);
    soldOut.markSoldOut('E1', [], 1);
    soldOut.markSoldOut('E2', [], 1);
    soldOut.markSoldOut('E1', [], 1); // refreshed: now the newest
    soldOut.markSoldOut('E3', [], 1);
    expect(soldOut.hasEntries('E2')).toBe(false);
    expect(soldOut.hasEntries('E1')).toBe(true);
    expect(soldOut.hasEntries('E3')).toBe(true);
  });
});

describe('tellingPlacesBack', () => {
  it('answers as the book does and tells of every clear, with or without an entry', () => {
    const { soldOut } = book();
    const told: string[] = [];
    const telling = tellingPlacesBack(soldOut, (eventId) => told.push(eventId));
    telling.markSoldOut(EVENT, [''], 1);
    expect(telling.isSoldOut(EVENT, [])).toBe(true);
    expect(telling.hasEntries(EVENT)).toBe(true);
    telling.clear(EVENT);
    telling.clear(OTHER, ['PL1']);
    expect(telling.isSoldOut(EVENT, [])).toBe(false);
    expect(told).toEqual([EVENT, OTHER]);
  });
});
