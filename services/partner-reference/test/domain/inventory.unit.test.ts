import { describe, expect, it } from 'vitest';
import { errorId } from '../fixtures.js';
import {
  applyHold,
  availableIn,
  chooseSeats,
  decodeAllocation,
  dropHold,
  dropSale,
  entriesOf,
  encodeAllocation,
  expiredHolds,
  findHold,
  hasSale,
  newInventory,
  rowRanges,
  sellHold,
  settle,
  tokensOf,
  totalAvailable,
  type InventoryRecord,
} from '../../src/domain/inventory.js';
import type { Area } from '../../src/domain/model.js';

const reserved = (id: string, rows: string[], perRow: number): Area => ({
  id,
  name: id,
  priceLevelId: 'PL1',
  generalAdmission: false,
  capacity: rows.length * perRow,
  seats: rows.flatMap((row) =>
    Array.from({ length: perRow }, (_, i) => ({
      id: `${id}-${row}-${i + 1}`,
      row,
      number: String(i + 1),
    })),
  ),
});
const ga = (id: string, capacity: number): Area => ({
  id,
  name: id,
  priceLevelId: 'PL2',
  generalAdmission: true,
  capacity,
});

const inventoryOf = (...areas: Area[]) => {
  const inventory = { ...newInventory('E1', areas, new Date(0)), version: 1 } as InventoryRecord;
  const rows = areas.map(rowRanges);
  return { inventory, rows: (i: number) => rows[i]! };
};

describe('inventory', () => {
  it('encodes and decodes allocations of seats and of general admission places', () => {
    const allocation = {
      token: 'B-abc_-1',
      expiresAt: 1234,
      parts: [
        { area: 0, seats: [1, 2, 3], places: 0 },
        { area: 1, seats: [], places: 5 },
      ],
    };

    const sut = decodeAllocation(encodeAllocation(allocation));

    expect(sut).toEqual(allocation);
  });

  it('holds, sells and frees seats by token, keeping the counts', () => {
    const { inventory: sut } = inventoryOf(reserved('A', ['A'], 4), ga('G', 10));
    applyHold(sut, {
      token: 't1',
      expiresAt: 100,
      parts: [
        { area: 0, seats: [0, 1], places: 0 },
        { area: 1, seats: [], places: 3 },
      ],
    });
    expect(sut.areas[0]!.seats).toBe('hh..');
    expect(availableIn(sut.areas[1]!)).toBe(7);
    expect(sut.nextExpiryAt).toBe(100);

    expect(sellHold(sut, 't1')).toBe(true);
    expect(sut.areas[0]!.seats).toBe('ss..');
    expect(sut.areas[1]).toMatchObject({ held: 0, sold: 3 });
    expect(sut.nextExpiryAt).toBeNull();
    expect(hasSale(sut, 't1')).toBe(true);

    expect(dropSale(sut, 't1')).toBe(true);
    expect(totalAvailable(sut)).toBe(14);
    expect(dropSale(sut, 't1')).toBe(false);
  });

  it('refuses to hold a seat that is not free (no seat is ever held twice)', () => {
    const { inventory: sut } = inventoryOf(reserved('A', ['A'], 2));
    applyHold(sut, { token: 't1', expiresAt: 1, parts: [{ area: 0, seats: [0], places: 0 }] });

    expect(() =>
      applyHold(sut, { token: 't2', expiresAt: 1, parts: [{ area: 0, seats: [0], places: 0 }] }),
    ).toThrow(/not '\.'/);
  });

  it('keeps one line per token, whatever the order holds end in', () => {
    const { inventory: sut } = inventoryOf(reserved('A', ['A'], 5));
    for (const [i, token] of ['t1', 't12', 't2', 't3'].entries())
      applyHold(sut, { token, expiresAt: 10 + i, parts: [{ area: 0, seats: [i], places: 0 }] });

    expect(dropHold(sut, 't2')).toBe(true);
    expect(tokensOf(sut)).toEqual(['t1', 't12', 't3']);
    expect(dropHold(sut, 't1')).toBe(true);
    expect(sellHold(sut, 't3')).toBe(true);
    expect(tokensOf(sut)).toEqual(['t12', 't3']);
    expect(sut.nextExpiryAt).toBe(11);
    expect(dropHold(sut, 't12')).toBe(true);
    expect(sut.holds).toBe('');
    expect(entriesOf(sut.sales)).toHaveLength(1);
    expect(sut.areas[0]!.seats).toBe('...s.');
  });

  it('lists holds whose time is up', () => {
    const { inventory: sut } = inventoryOf(reserved('A', ['A'], 3));
    applyHold(sut, { token: 't1', expiresAt: 100, parts: [{ area: 0, seats: [0], places: 0 }] });
    applyHold(sut, { token: 't2', expiresAt: 200, parts: [{ area: 0, seats: [1], places: 0 }] });

    expect(expiredHolds(sut, 99)).toEqual([]);
    expect(expiredHolds(sut, 150)).toEqual(['t1']);
    dropHold(sut, 't1');
    expect(sut.nextExpiryAt).toBe(200);
  });

  describe('settle (the inventory follows the booking)', () => {
    const held = () => {
      const { inventory } = inventoryOf(reserved('A', ['A'], 2));
      applyHold(inventory, {
        token: 't',
        expiresAt: 100,
        parts: [{ area: 0, seats: [0], places: 0 }],
      });
      return inventory;
    };

    it('sells the hold of a confirmed or printed booking', () => {
      for (const status of ['CONFIRMED', 'PRINTED'] as const) {
        const sut = held();
        expect(settle(sut, 't', status, 0)).toBe(true);
        expect(sut.areas[0]!.seats).toBe('s.');
      }
    });

    it('frees the places of a released, expired or cancelled booking', () => {
      for (const status of ['RELEASED', 'EXPIRED', 'CANCELLED'] as const) {
        const sut = held();
        expect(settle(sut, 't', status, 0)).toBe(true);
        expect(sut.areas[0]!.seats).toBe('..');
      }
      const sold = held();
      sellHold(sold, 't');
      expect(settle(sold, 't', 'CANCELLED', 0)).toBe(true);
      expect(sold.areas[0]!.seats).toBe('..');
    });

    it('frees a hold without booking record only once it has expired', () => {
      const sut = held();
      expect(settle(sut, 't', undefined, 50)).toBe(false);
      expect(settle(sut, 't', undefined, 100)).toBe(true);
      expect(findHold(sut, 't')).toBeUndefined();
    });

    it('leaves a live booking alone and is idempotent', () => {
      const sut = held();
      expect(settle(sut, 't', 'BOOKED', 1000)).toBe(false);
      expect(settle(sut, 't', 'CONFIRMED', 0)).toBe(true);
      expect(settle(sut, 't', 'CONFIRMED', 0)).toBe(false);
    });
  });

  describe('chooseSeats (best available)', () => {
    it('prefers seats side by side in one row', () => {
      const { inventory, rows } = inventoryOf(reserved('A', ['A', 'B'], 4));
      applyHold(inventory, {
        token: 'x',
        expiresAt: 1,
        parts: [{ area: 0, seats: [1], places: 0 }],
      });

      const sut = chooseSeats(inventory, rows, [{ candidates: [0], quantity: 3 }]);

      expect(sut).toEqual([[{ area: 0, seats: [4, 5, 6], places: 0 }]]);
    });

    it('takes scattered seats of one area when no row has them side by side', () => {
      const { inventory, rows } = inventoryOf(reserved('A', ['A', 'B'], 2));
      applyHold(inventory, {
        token: 'x',
        expiresAt: 1,
        parts: [{ area: 0, seats: [1, 2], places: 0 }],
      });

      const sut = chooseSeats(inventory, rows, [{ candidates: [0], quantity: 2 }]);

      expect(sut).toEqual([[{ area: 0, seats: [0, 3], places: 0 }]]);
    });

    it('spreads over candidate areas when no single area has enough', () => {
      const { inventory, rows } = inventoryOf(reserved('A', ['A'], 2), ga('G', 1));

      const sut = chooseSeats(inventory, rows, [{ candidates: [0, 1], quantity: 3 }]);

      expect(sut).toEqual([
        [
          { area: 0, seats: [0, 1], places: 0 },
          { area: 1, seats: [], places: 1 },
        ],
      ]);
    });

    it('does not give two lines of one request the same seats', () => {
      const { inventory, rows } = inventoryOf(reserved('A', ['A'], 4));

      const sut = chooseSeats(inventory, rows, [
        { candidates: [0], quantity: 2 },
        { candidates: [0], quantity: 2 },
      ]);

      expect(sut.flat().flatMap((p) => p.seats)).toEqual([0, 1, 2, 3]);
    });

    it('refuses with 303 when the areas have fewer places than asked', () => {
      const { inventory, rows } = inventoryOf(reserved('A', ['A'], 2));

      expect(errorId(() => chooseSeats(inventory, rows, [{ candidates: [0], quantity: 3 }]))).toBe(
        303,
      );
    });

    it('refuses with 306 when nothing at all is left', () => {
      const { inventory, rows } = inventoryOf(ga('G', 1));
      applyHold(inventory, {
        token: 'x',
        expiresAt: 1,
        parts: [{ area: 0, seats: [], places: 1 }],
      });

      expect(errorId(() => chooseSeats(inventory, rows, [{ candidates: [0], quantity: 1 }]))).toBe(
        306,
      );
    });

    it('holds named seats, and refuses with 307 when one is taken', () => {
      const { inventory, rows } = inventoryOf(reserved('A', ['A'], 3));
      expect(
        chooseSeats(inventory, rows, [{ candidates: [0], quantity: 2, seats: [0, 2] }]),
      ).toEqual([[{ area: 0, seats: [0, 2], places: 0 }]]);
      applyHold(inventory, {
        token: 'x',
        expiresAt: 1,
        parts: [{ area: 0, seats: [2], places: 0 }],
      });

      expect(
        errorId(() =>
          chooseSeats(inventory, rows, [{ candidates: [0], quantity: 2, seats: [0, 2] }]),
        ),
      ).toBe(307);
    });
  });
});
