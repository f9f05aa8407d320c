import { beforeEach, describe, expect, it } from 'vitest';
import type { EventRecordRepository } from '../src/domain/event-record.js';
import { anEvent, text } from './builders.js';

/** One contract for every EventRecordRepository adapter (memory as unit, Mongo as integration). */
export function eventRecordsContract(name: string, create: () => Promise<EventRecordRepository>) {
  describe(`EventRecordRepository contract: ${name}`, () => {
    let sut: EventRecordRepository;
    beforeEach(async () => {
      sut = await create();
    });

    it('returns undefined for an unknown id', async () => {
      expect(await sut.get('missing')).toBeUndefined();
    });

    it('stores an event with every field and returns it equal', async () => {
      const event = anEvent({
        id: 'C1',
        version: 7,
        // Non-ASCII text: bytes above 0x7f in the encoding must come back as they went in.
        names: text('Contract Show', { 'de-de': 'Vertragsshow in Zürich · 東京 🎭' }),
        publicVisibility: {
          visible: true,
          startDateTime: new Date('2026-01-01T00:00:00Z'),
          endDateTime: undefined,
        },
      });
      await sut.put({ id: 'C1', eventVersion: 7, deleted: false, event });
      expect(await sut.get('C1')).toEqual({ id: 'C1', eventVersion: 7, deleted: false, event });
    });

    it('replaces a record, including with a deletion marker', async () => {
      await sut.put({ id: 'C2', eventVersion: 1, deleted: false, event: anEvent({ id: 'C2' }) });
      await sut.put({ id: 'C2', eventVersion: 1, deleted: true, event: undefined });
      expect(await sut.get('C2')).toEqual({
        id: 'C2',
        eventVersion: 1,
        deleted: true,
        event: undefined,
      });
    });

    it('scans every record once, in pages, in id order', async () => {
      const idsIn = ['S3', 'S1', 'S5', 'S2', 'S4'];
      for (const id of idsIn) {
        await sut.put({
          id,
          eventVersion: 1,
          deleted: id === 'S4',
          event: id === 'S4' ? undefined : anEvent({ id }),
        });
      }
      const pages: string[][] = [];
      for await (const page of sut.scan(2)) pages.push(page.map((r) => r.id));
      expect(pages.flat().filter((id) => id.startsWith('S'))).toEqual([
        'S1',
        'S2',
        'S3',
        'S4',
        'S5',
      ]);
      expect(pages.every((p) => p.length <= 2)).toBe(true);
    });
  });
}
