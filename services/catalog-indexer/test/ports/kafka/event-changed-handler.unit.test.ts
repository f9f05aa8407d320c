import { describe, expect, it } from 'vitest';
import { eventChangedTopic } from '@marquee/proto';
import { EventChanged } from '@marquee/proto/catalog/v1';
import { createMemoryBus } from '@marquee/platform/bus';
import { createLogger } from '@marquee/platform/logger';
import { metricValue, waitFor } from '@marquee/platform/testing';
import { anEventMessage, query, text } from '../../builders.js';
import { buildCatalogIndexer } from '../../../src/service.js';

describe('event-changed consumer (memory bus)', () => {
  it('makes a published event searchable, then renames and deletes it', async () => {
    const logger = createLogger({ service: 'test', level: 'silent' });
    const bus = createMemoryBus({ source: '//test' });
    const { catalog: sut } = await buildCatalogIndexer({
      name: 'catalog-indexer',
      logger,
      bus,
      mongo: undefined,
    });
    const changes = async (outcome: string) =>
      (await metricValue(`marquee_catalog_event_changes_total{outcome="${outcome}"}`)) ?? 0;
    const before = { applied: await changes('applied'), deleted: await changes('deleted') };
    await bus.start();
    const event = anEventMessage({ id: 'BUS000000000001', names: text('Harbour Lights') });
    const names = () =>
      sut
        .searchEvents(query({ keyword: 'harbour' }))
        .items.map((h) => h.event.names?.values['en-us']);

    await bus.publish(eventChangedTopic, [
      { key: event.id, value: EventChanged.fromPartial({ event }) },
    ]);
    await waitFor(() => names().length === 1, { description: 'the event' });
    await bus.publish(eventChangedTopic, [
      {
        key: event.id,
        value: EventChanged.fromPartial({
          event: { ...event, version: 2, names: text('Harbour Nights') },
        }),
      },
    ]);
    await waitFor(() => names()[0] === 'Harbour Nights', { description: 'the rename' });
    await bus.publish(eventChangedTopic, [{ key: event.id, value: null }]);
    await waitFor(() => names().length === 0, { description: 'the deletion' });
    await bus.close();
    expect(names()).toEqual([]);
    // Each change counted by what became of it (marquee_catalog_event_changes_total).
    expect(await changes('applied')).toBe(before.applied + 2);
    expect(await changes('deleted')).toBe(before.deleted + 1);
  });
});
