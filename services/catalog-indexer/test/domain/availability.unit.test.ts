import { describe, expect, it } from 'vitest';
import {
  applyAvailability,
  isSoldOut,
  type AvailabilityRecord,
  type AvailabilityScope,
  type AvailabilityUpdate,
} from '../../src/domain/availability.js';

const observedAt = new Date('2026-01-01T10:00:00Z');

/** A synchronisation of event A1; `areas` as [area id, available]. */
const sync = (
  sequence: number,
  scope: AvailabilityScope,
  areas: [string, number][],
  totalAvailable = areas.reduce((sum, [, n]) => sum + n, 0),
): AvailabilityUpdate => ({
  eventId: 'A1',
  scope,
  sequence,
  totalAvailable,
  observedAt,
  areas: areas.map(([areaId, available]) => ({ areaId, levelId: '', sectionId: '', available })),
});
const full = (sequence: number, areas: [string, number][], total?: number) =>
  sync(sequence, 'full', areas, total);
const partial = (sequence: number, areas: [string, number][]) => sync(sequence, 'partial', areas);

/** Applies the messages in order, skipping stale ones, as the catalog does. */
const applyAll = (...messages: AvailabilityUpdate[]) =>
  messages.reduce<AvailabilityRecord | undefined>(
    (held, message) => applyAvailability(held, message) ?? held,
    undefined,
  );
const counts = (record: AvailabilityRecord | undefined) =>
  record && {
    total: record.totalAvailable,
    areas: Object.fromEntries(record.areas.map((a) => [a.areaId, a.available])),
  };

describe('applyAvailability', () => {
  it('keeps a full synchronisation: its areas, its total, its sequence and observation time', () => {
    expect(
      applyAvailability(
        undefined,
        full(3, [
          ['B', 2],
          ['A', 5],
        ]),
      ),
    ).toEqual({
      eventId: 'A1',
      sequence: 3,
      observedAt,
      fullSync: true,
      totalAvailable: 7,
      areas: [
        { areaId: 'A', available: 5 },
        { areaId: 'B', available: 2 },
      ],
    });
  });

  it('drops a message whose sequence is not greater than the one applied (redelivery, late retry)', () => {
    const held = applyAll(full(5, [['A', 5]]));
    expect(applyAvailability(held, full(5, [['A', 0]]))).toBeUndefined();
    expect(applyAvailability(held, partial(4, [['A', 0]]))).toBeUndefined();
    expect(counts(applyAll(full(5, [['A', 5]]), full(4, [['A', 0]])))).toEqual({
      total: 5,
      areas: { A: 5 },
    });
  });

  it('a partial synchronisation replaces only its areas and moves the total by their difference', () => {
    const held = applyAll(
      full(1, [
        ['A', 5],
        ['B', 2],
      ]),
      partial(2, [
        ['A', 1],
        ['C', 4],
      ]),
    );
    expect(counts(held)).toEqual({ total: 7, areas: { A: 1, B: 2, C: 4 } });
    expect(held?.fullSync).toBe(true);
  });

  it('a partial synchronisation keeps what a full one counted without listing areas', () => {
    expect(counts(applyAll(full(1, [], 40), partial(2, [['A', 0]])))).toEqual({
      total: 40,
      areas: { A: 0 },
    });
  });

  it('a full synchronisation replaces every area a partial one had set', () => {
    expect(counts(applyAll(partial(1, [['A', 3]]), full(2, [['B', 1]])))).toEqual({
      total: 1,
      areas: { B: 1 },
    });
  });

  it('without a full synchronisation, the total is the sum of the areas known', () => {
    const held = applyAll(partial(1, [['A', 3]]), partial(2, [['B', 0]]), partial(3, [['A', 0]]));
    expect(counts(held)).toEqual({ total: 0, areas: { A: 0, B: 0 } });
    expect(held?.fullSync).toBe(false);
  });

  it('names an area by level and section when the partner gives no area id; counts below 0 are 0', () => {
    const message: AvailabilityUpdate = {
      ...sync(1, 'partial', []),
      areas: [{ areaId: '', levelId: 'L1', sectionId: 'S2', available: -3 }],
    };
    expect(counts(applyAvailability(undefined, message))).toEqual({
      total: 0,
      areas: { 'L1/S2': 0 },
    });
  });

  it('refuses a message whose scope is neither full nor partial (a producer bug)', () => {
    expect(() => applyAvailability(undefined, sync(1, 'unspecified', []))).toThrow(
      expect.objectContaining({ kind: 'invalid_argument' }),
    );
  });
});

describe('isSoldOut', () => {
  it.each<[string, AvailabilityUpdate[], boolean]>([
    ['a full synchronisation with nothing available', [full(1, [], 0)], true],
    [
      'a full synchronisation whose areas are all at 0',
      [
        full(1, [
          ['A', 0],
          ['B', 0],
        ]),
      ],
      true,
    ],
    [
      'a full synchronisation with tickets',
      [
        full(1, [
          ['A', 0],
          ['B', 1],
        ]),
      ],
      false,
    ],
    [
      'every known area at 0, no full synchronisation',
      [
        partial(1, [
          ['A', 0],
          ['B', 0],
        ]),
      ],
      true,
    ],
    [
      'one known area with tickets',
      [
        partial(1, [
          ['A', 0],
          ['B', 2],
        ]),
      ],
      false,
    ],
    ['a partial synchronisation without areas', [partial(1, [])], false],
    ['tickets released after a sell-out', [full(1, [['A', 0]]), partial(2, [['A', 2]])], false],
    [
      'the last area selling out',
      [
        full(1, [
          ['A', 1],
          ['B', 0],
        ]),
        partial(2, [['A', 0]]),
      ],
      true,
    ],
  ])('%s: %s', (_, messages, expected) => {
    expect(isSoldOut(applyAll(...messages)!)).toBe(expected);
  });
});
