import { describe, expect, it } from 'vitest';
import {
  eventDocument,
  resolvedOf,
  Utf8Writer,
  writeEventDocument,
} from '@marquee/discovery-documents';
import { DiscoveryAttraction, DiscoveryVenue, Event } from '@marquee/proto/catalog/v1';
import { createMemoryEventRecords } from '../../src/adapters/memory-event-records.js';
import { createMemoryAvailabilityRecords } from '../../src/adapters/availability-records.js';
import { discoveryDocuments } from '../../src/adapters/discovery-documents.js';
import { protobufEventCodec } from '../../src/adapters/protobuf-event-codec.js';
import { Catalog } from '../../src/app/catalog.js';
import type { CatalogEvent } from '../../src/domain/model.js';
import { anEvent, classification, place, query, text } from '../builders.js';

/** The page as the gRPC port joins it (catalog-grpc.ts). */
const joined = (catalog: Catalog, q = query({ keyword: 'concert' })) =>
  catalog
    .searchEventsDocuments(q)!
    .items.map((hit) => {
      const out = new Utf8Writer();
      writeEventDocument(out, hit.opening, hit.venue, hit.attractions);
      return out.finish().toString();
    })
    .join(',');

/** The page as the edge renders it from the events it decodes (the path with a locale). */
const rendered = (catalog: Catalog, q = query({ keyword: 'concert' })) => {
  const hits = catalog.searchEventsEncoded(q).items;
  const resolved = resolvedOf(
    hits.flatMap((hit) => (hit.venue ? [DiscoveryVenue.decode(hit.venue.encoded)] : [])),
    hits.flatMap((hit) => hit.attractions.map((a) => DiscoveryAttraction.decode(a.encoded))),
  );
  return hits
    .map((hit) => JSON.stringify(eventDocument(Event.decode(hit.encoded), resolved, undefined)))
    .join(',');
};

describe('event documents rendered as events are indexed', () => {
  let now = new Date('2026-01-01T00:00:00Z');
  const catalog = new Catalog({
    records: createMemoryEventRecords(),
    availability: createMemoryAvailabilityRecords(),
    clock: () => now,
    eventCodec: protobufEventCodec,
    documents: discoveryDocuments,
  });
  const apply = (event: CatalogEvent) => catalog.applyEventChanged(event.id, event);
  const band = {
    ref: { $case: 'id' as const, value: 'K1' },
    names: text('The Band'),
    resolvedId: '',
  };

  it('answer a search with, byte for byte, what the edge renders from the events', async () => {
    await apply(
      anEvent({
        id: 'DOC00000000001',
        names: text('Spring Concert'),
        attractions: [band],
        classifications: [classification(['KZ1', 'Music'], ['KG1', 'Rock'])],
        priceRanges: [
          { type: 0, min: { amountMinor: 2500, currency: 'USD' }, max: undefined },
        ] as never,
      }),
    );
    // First locale German: a search without a locale shows each text's first locale.
    await apply(
      anEvent({
        id: 'DOC00000000002',
        names: { values: { 'de-de': 'Frühlingskonzert Concert', 'en-us': 'Spring Concert' } },
        attractions: [
          band,
          { ref: { $case: 'id', value: 'K2' }, names: text('Opening "Act"'), resolvedId: '' },
        ],
        dates: { start: { localDate: '2030-06-01', dateTime: new Date('2030-06-01T18:00:00Z') } },
      } as never),
    );
    await apply(
      anEvent({
        id: 'DOC00000000003',
        names: text('Lakeside Concert'),
        location: {
          $case: 'place',
          value: place({
            names: text('Lake Hall'),
            cityNames: text('Chicago'),
            postalCode: '60601',
          }),
        },
        dates: { start: { localDate: '2031-01-01', dateTime: new Date('2031-01-01T20:00:00Z') } },
      } as never),
    );

    // No venue and no attractions: empty link and embedded lists.
    await apply(
      anEvent({ id: 'DOC00000000004', names: text('Online Concert'), location: undefined }),
    );

    const documents = joined(catalog);
    expect(documents).toBe(rendered(catalog));
    const parsed = JSON.parse(`[${documents}]`) as Array<{
      name: string;
      _embedded: {
        venues: { upcomingEvents: { _total: number } }[];
        attractions: { id: string }[];
      };
    }>;
    const named = (name: string) => parsed.find((d) => d.name === name)!;
    expect(parsed.map((d) => d.name).sort()).toEqual([
      'Frühlingskonzert Concert',
      'Lakeside Concert',
      'Online Concert',
      'Spring Concert',
    ]);
    expect(named('Online Concert')._embedded).toEqual({ venues: [], attractions: [] });
    expect(named('Frühlingskonzert Concert')._embedded.attractions.map((a) => a.id)).toEqual([
      'K1',
      'K2',
    ]);
    expect(named('Spring Concert')._embedded.venues[0]!.upcomingEvents._total).toBe(2);
  });

  it('follow the upcoming-event counts as the clock passes a start', () => {
    now = new Date('2030-05-15T00:00:00Z');
    const documents = joined(catalog);
    expect(documents).toBe(rendered(catalog));
    const parsed = JSON.parse(`[${documents}]`) as Array<{
      name: string;
      _embedded: { venues: { upcomingEvents: { _total: number } }[] };
    }>;
    // The first event has started: its venue has one upcoming event left.
    const spring = parsed.find((d) => d.name === 'Spring Concert')!;
    expect(spring._embedded.venues[0]!.upcomingEvents._total).toBe(1);
  });

  it('follow a new version of an event, and leave out a deleted one', async () => {
    await apply(anEvent({ id: 'DOC00000000003', version: 2, names: text('Lakeside Concert II') }));
    await catalog.applyEventChanged('DOC00000000002', null);
    const documents = joined(catalog);
    expect(documents).toBe(rendered(catalog));
    const names = (JSON.parse(`[${documents}]`) as { name: string }[]).map((d) => d.name);
    expect(names.sort()).toEqual(['Lakeside Concert II', 'Online Concert', 'Spring Concert']);
  });

  it('are not rendered by a catalog without a renderer', async () => {
    const plain = new Catalog({
      records: createMemoryEventRecords(),
      availability: createMemoryAvailabilityRecords(),
      eventCodec: protobufEventCodec,
    });
    await plain.applyEventChanged('DOC00000000009', anEvent({ id: 'DOC00000000009' }));
    expect(plain.searchEventsDocuments(query({ keyword: 'concert' }))).toBeUndefined();
  });
});
