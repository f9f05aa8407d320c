import { describe, expect, it } from 'vitest';
import { EventSort } from '@marquee/proto/catalog/v1';
import { anEvent, query, text } from '../builders.js';
import { protobufEventCodec } from '../../src/adapters/protobuf-event-codec.js';
import { CatalogIndex } from '../../src/domain/catalog-index.js';

const now = new Date('2026-01-01T00:00:00Z');
const day = (n: number) => new Date(Date.UTC(2030, 0, 1 + n, 20));
const at = (id: string, n: number, name: string) =>
  anEvent({
    id,
    names: text(name),
    dates: {
      start: {
        localDate: '',
        localTime: '',
        dateTime: day(n),
        dateTbd: false,
        dateTba: false,
        timeTba: false,
        noSpecificTime: false,
      },
      timezone: 'UTC',
      access: undefined,
      end: undefined,
    },
  });

/**
 * The index keeps each sort order current across changes by merging changed events back in
 * (doc-order.ts) and reuses the document numbers of removed events: every search after a change
 * must order exactly as a fresh index holding the same events.
 */
describe('CatalogIndex after changes', () => {
  const searches = [
    { sort: EventSort.EVENT_SORT_DATE_ASC },
    { sort: EventSort.EVENT_SORT_DATE_DESC },
    { sort: EventSort.EVENT_SORT_NAME_ASC },
    { sort: EventSort.EVENT_SORT_NAME_DESC },
    { sort: EventSort.EVENT_SORT_DATE_ASC, keyword: 'gala' },
    { sort: EventSort.EVENT_SORT_NAME_ASC, keyword: 'gala' },
    { keyword: 'gala' },
    { startDateTime: day(10), endDateTime: day(30) },
    { sort: EventSort.EVENT_SORT_NAME_DESC, startDateTime: day(10), endDateTime: day(30) },
  ];
  const idsOf = (sut: CatalogIndex, q: (typeof searches)[number]) =>
    sut
      .searchEvents(query({ ...q, page: { offset: 0, limit: 500 } }), now)
      .items.map((h) => h.event.id);

  it('orders every search as a fresh index would, through updates, removals and re-adds', () => {
    const sut = new CatalogIndex(protobufEventCodec);
    const live = new Map<string, ReturnType<typeof at>>();
    let seed = 11;
    const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const names = ['Gala Night', 'Jazz Gala', 'Rock Show', 'Summer Gala Live', 'Quiet Evening'];
    for (let i = 0; i < 300; i++) {
      const id = `CHG${String(i).padStart(11, '0')}`;
      const event = at(id, Math.floor(next() * 60), names[i % names.length]!);
      live.set(id, event);
      sut.upsert(event);
    }
    for (const q of searches) idsOf(sut, q); // build every order once, so later changes merge

    for (let round = 0; round < 15; round++) {
      for (let k = 0; k < 12; k++) {
        const id = `CHG${String(Math.floor(next() * 320)).padStart(11, '0')}`;
        if (next() < 0.3) {
          sut.remove(id);
          live.delete(id);
        } else {
          const event = at(id, Math.floor(next() * 60), names[Math.floor(next() * names.length)]!);
          live.set(id, event);
          sut.upsert(event);
        }
      }
      const fresh = new CatalogIndex(protobufEventCodec);
      for (const event of live.values()) fresh.upsert(event);
      for (const q of searches) expect(idsOf(sut, q), JSON.stringify(q)).toEqual(idsOf(fresh, q));
    }
    expect(sut.size).toBe(live.size);
  });
});
