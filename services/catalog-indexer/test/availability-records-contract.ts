import { beforeEach, describe, expect, it } from 'vitest';
import type {
  AvailabilityRecord,
  AvailabilityRecordRepository,
} from '../src/domain/availability.js';

const record = (eventId: string, sequence: number, totalAvailable = 5): AvailabilityRecord => ({
  eventId,
  sequence,
  observedAt: new Date('2026-01-01T10:00:00Z'),
  fullSync: true,
  totalAvailable,
  areas: [
    { areaId: 'A', available: totalAvailable },
    { areaId: 'L1/S2', available: 0 },
  ],
});

/**
 * One contract for every AvailabilityRecordRepository adapter (memory as unit, Mongo as
 * integration).
 */
export function availabilityRecordsContract(
  name: string,
  create: () => Promise<AvailabilityRecordRepository>,
) {
  describe(`AvailabilityRecordRepository contract: ${name}`, () => {
    let sut: AvailabilityRecordRepository;
    beforeEach(async () => {
      sut = await create();
    });

    it('returns undefined for an unknown event id', async () => {
      expect(await sut.get('missing')).toBeUndefined();
    });

    it('stores a record with every field and returns it equal', async () => {
      expect(await sut.put(record('V1', 3))).toBe(true);
      expect(await sut.get('V1')).toEqual(record('V1', 3));
      const unobserved = { ...record('V2', 1), observedAt: undefined, fullSync: false, areas: [] };
      expect(await sut.put(unobserved)).toBe(true);
      expect(await sut.get('V2')).toEqual(unobserved);
    });

    it('replaces a record only with a greater sequence (a redelivery or an older one is a no-op)', async () => {
      await sut.put(record('V3', 5, 10));
      expect(await sut.put(record('V3', 5, 0))).toBe(false);
      expect(await sut.put(record('V3', 4, 0))).toBe(false);
      expect(await sut.get('V3')).toEqual(record('V3', 5, 10));
      expect(await sut.put(record('V3', 6, 0))).toBe(true);
      expect(await sut.get('V3')).toEqual(record('V3', 6, 0));
    });

    it('scans every record once, in pages, in event id order', async () => {
      for (const id of ['W3', 'W1', 'W5', 'W2', 'W4']) await sut.put(record(id, 1));
      const pages: string[][] = [];
      for await (const page of sut.scan(2)) pages.push(page.map((r) => r.eventId));
      expect(pages.flat().filter((id) => id.startsWith('W'))).toEqual([
        'W1',
        'W2',
        'W3',
        'W4',
        'W5',
      ]);
      expect(pages.every((p) => p.length <= 2)).toBe(true);
    });
  });
}
