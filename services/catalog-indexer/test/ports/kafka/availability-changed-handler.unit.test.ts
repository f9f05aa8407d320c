import { describe, expect, it } from 'vitest';
import { availabilityChangedTopic, eventChangedTopic } from '@marquee/proto';
import { AvailabilityChanged, EventChanged, SyncScope } from '@marquee/proto/catalog/v1';
import { createMemoryBus } from '@marquee/platform/bus';
import { createLogger } from '@marquee/platform/logger';
import { waitFor } from '@marquee/platform/testing';
import { anEventMessage, query, text } from '../../builders.js';
import { buildCatalogIndexer } from '../../../src/service.js';

describe('availability-changed consumer (memory bus)', () => {
  it('applies availability before and after its event, and skips what it cannot apply', async () => {
    const logger = createLogger({ service: 'test', level: 'silent' });
    const bus = createMemoryBus({
      source: '//test',
      logger,
      retry: { initialBackoffMs: 1, maxBackoffMs: 1 },
    });
    const { catalog: sut, parts } = await buildCatalogIndexer({
      name: 'catalog-indexer',
      logger,
      bus,
      mongo: undefined,
    });
    const availability = (eventId: string, sequence: number, available: number) =>
      AvailabilityChanged.fromPartial({
        eventId,
        scope: SyncScope.SYNC_SCOPE_FULL,
        sequence,
        totalAvailable: available,
        areas: [{ areaId: 'A', available }],
      });
    const seats = () =>
      sut
        .searchEvents(query({ keyword: 'lighthouse', seatsAvailable: true }))
        .items.map((h) => h.event.id);
    try {
      // Availability first: the event is not known yet.
      await bus.publish(availabilityChangedTopic, [
        { key: 'BUSAVAIL0000001', value: availability('BUSAVAIL0000001', 1, 0) },
        // Producer bugs: a key that is not the event id, a record without a value.
        { key: 'BUSAVAIL0000002', value: availability('BUSAVAIL0000001', 2, 9) },
        { key: 'BUSAVAIL0000001', value: null },
      ]);
      await bus.publish(eventChangedTopic, [
        {
          key: 'BUSAVAIL0000001',
          value: EventChanged.fromPartial({
            event: anEventMessage({ id: 'BUSAVAIL0000001', names: text('Lighthouse Live') }),
          }),
        },
      ]);
      // Started after the publishes: caught up means every record above was handled or skipped.
      await bus.start();
      await waitFor(() => parts.readiness!['availability-changed']!(), {
        description: 'caught up',
      });
      expect(sut.searchEvents(query({ keyword: 'lighthouse' })).total).toBe(1);
      expect(sut.getEvent('BUSAVAIL0000001').event.availability).toEqual({ soldOut: true });
      // The two producer bugs were retried, then skipped: not applied (no seats), and no dead
      // letter (every replica reads them again at every start).
      expect(seats()).toEqual([]);
      expect(bus.records(`${availabilityChangedTopic.name}.dlq`)).toEqual([]);
      await bus.publish(availabilityChangedTopic, [
        { key: 'BUSAVAIL0000001', value: availability('BUSAVAIL0000001', 3, 12) },
      ]);
      await waitFor(() => seats().length === 1, { description: 'the event back with seats' });
    } finally {
      await bus.close();
    }
  });
});
