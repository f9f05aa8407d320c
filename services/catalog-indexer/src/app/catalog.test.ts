import { describe, expect, it } from 'vitest';
import { createMemoryEventRecords } from '../adapters/memory-event-records.js';
import { anEvent, query, text } from '../../test/builders.js';
import { Catalog } from './catalog.js';

const clock = () => new Date('2026-01-01T00:00:00Z');
const names = (sut: Catalog, keyword: string) =>
  sut.searchEvents(query({ keyword })).items.map((h) => h.event.names?.values['en-us']);

describe('Catalog.applyEventChanged', () => {
  it('applies a newer version and ignores an older or repeated one', async () => {
    const sut = new Catalog({ records: createMemoryEventRecords(), clock });
    const v1 = anEvent({ id: 'E1', version: 1, names: text('First Name') });
    const v2 = { ...v1, version: 2, names: text('Second Name') };
    expect(await sut.applyEventChanged('E1', v1)).toBe('applied');
    expect(await sut.applyEventChanged('E1', v2)).toBe('applied');
    expect(await sut.applyEventChanged('E1', v1)).toBe('stale');
    expect(await sut.applyEventChanged('E1', v2)).toBe('stale');
    expect(names(sut, 'name')).toEqual(['Second Name']);
  });

  it('deletes on a tombstone and never lets an older state bring the event back', async () => {
    const sut = new Catalog({ records: createMemoryEventRecords(), clock });
    const v3 = anEvent({ id: 'E2', version: 3, names: text('Doomed Show') });
    await sut.applyEventChanged('E2', v3);
    expect(await sut.applyEventChanged('E2', null)).toBe('deleted');
    expect(names(sut, 'doomed')).toEqual([]);
    expect(() => sut.getEvent('E2')).toThrow(expect.objectContaining({ kind: 'not_found' }));
    expect(await sut.applyEventChanged('E2', { ...v3, version: 2 })).toBe('stale');
    expect(await sut.applyEventChanged('E2', null)).toBe('already-deleted');
    expect(names(sut, 'doomed')).toEqual([]);
    // A newer state after the deletion is a new life of the event.
    expect(await sut.applyEventChanged('E2', { ...v3, version: 4 })).toBe('applied');
    expect(names(sut, 'doomed')).toEqual(['Doomed Show']);
  });

  it('refuses a record whose key is not the event id', async () => {
    const sut = new Catalog({ records: createMemoryEventRecords(), clock });
    await expect(sut.applyEventChanged('OTHER', anEvent({ id: 'E3' }))).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
  });

  it('getEvent hides inactive events and answers not_found for unknown ids', async () => {
    const sut = new Catalog({ records: createMemoryEventRecords(), clock });
    await sut.applyEventChanged('E4', anEvent({ id: 'E4', active: false }));
    expect(() => sut.getEvent('E4')).toThrow(expect.objectContaining({ kind: 'not_found' }));
    expect(() => sut.getEvent('nope')).toThrow(expect.objectContaining({ kind: 'not_found' }));
  });
});

describe('Catalog.rebuild', () => {
  it('rebuilds the same index from the read model alone (live events only)', async () => {
    const records = createMemoryEventRecords();
    const before = new Catalog({ records, clock, rebuildPageSize: 2 });
    for (let i = 0; i < 5; i++) {
      await before.applyEventChanged(
        `R${i}`,
        anEvent({ id: `R${i}`, names: text(`Rebuilt Show ${i}`) }),
      );
    }
    await before.applyEventChanged('R2', null);
    const sut = new Catalog({ records, clock, rebuildPageSize: 2 });
    expect(await sut.rebuild()).toBe(4);
    expect(names(sut, 'rebuilt').sort()).toEqual(names(before, 'rebuilt').sort());
    expect(await sut.applyEventChanged('R1', anEvent({ id: 'R1', version: 1 }))).toBe('stale');
  });
});
