import { afterAll, expect, it } from 'vitest';
import { availabilityChangedTopic, eventChangedTopic } from '@marquee/proto';
import { AvailabilityChanged, EventChanged, SyncScope } from '@marquee/proto/catalog/v1';
import { createKafkaBus, type EventBus } from '@marquee/platform/bus';
import { createLogger } from '@marquee/platform/logger';
import { describeIntegration, uniqueName, waitFor } from '@marquee/platform/testing';
import type { Catalog } from '../src/app/catalog.js';
import { buildCatalogIndexer } from '../src/service.js';
import { anEventMessage, query, text } from './builders.js';

describeIntegration('catalog-indexer on real Kafka', ({ kafka }) => {
  const logger = createLogger({ service: 'catalog-indexer-test', level: 'silent' });
  const buses: EventBus[] = [];
  afterAll(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
  });

  /** A replica: its own bus (its own process, as far as Kafka can tell) and catalog. */
  const replica = async (topics: {
    topic: typeof eventChangedTopic;
    availabilityTopic?: typeof availabilityChangedTopic;
  }) => {
    const bus = createKafkaBus({
      ...kafka,
      clientId: uniqueName('ci'),
      source: '//marquee/catalog-indexer',
      logger,
    });
    buses.push(bus);
    const built = await buildCatalogIndexer(
      { name: 'catalog-indexer', logger, bus, mongo: undefined },
      { ...topics, name: uniqueName('catalog-indexer') },
    );
    await bus.start();
    const readiness = built.parts.readiness!;
    const ready = async () =>
      (await Promise.all(Object.values(readiness).map((check) => check()))).every(Boolean);
    return { catalog: built.catalog, ready };
  };

  it('reads event-changed whole in every replica: updates, stale redeliveries, tombstones, a late replica', async () => {
    const topic = { ...eventChangedTopic, name: uniqueName('event-changed') };
    const publisher = createKafkaBus({
      ...kafka,
      clientId: uniqueName('pub'),
      source: '//marquee/publisher',
      logger,
    });
    buses.push(publisher);
    const first = await replica({ topic });
    const sut = first.catalog;

    const kept = anEventMessage({
      id: 'KAFKAKEPT000001',
      version: 1,
      names: text('Kafka Original'),
    });
    const gone = anEventMessage({ id: 'KAFKAGONE000001', version: 1, names: text('Kafka Doomed') });
    const changed = (event: typeof kept) =>
      EventChanged.fromPartial({ event, changedAt: new Date() });
    await publisher.publish(topic, [
      { key: kept.id, value: changed(kept) },
      { key: gone.id, value: changed(gone) },
      { key: kept.id, value: changed({ ...kept, version: 2, names: text('Kafka Renamed') }) },
      // A redelivered older state after the newer one must not win.
      { key: kept.id, value: changed(kept) },
      { key: gone.id, value: null },
    ]);

    const names = (c: Catalog) =>
      c.searchEvents(query({ keyword: 'kafka' })).items.map((h) => h.event.names?.values['en-us']);
    await waitFor(() => names(sut).join() === 'Kafka Renamed' && sut.index.size === 1, {
      timeoutMs: 30_000,
      description: 'the update and the deletion',
    });
    expect(await first.ready()).toBe(true);
    expect(() => sut.getEvent('KAFKAGONE000001')).toThrow();

    // A replica started now reads the whole topic: the same answers once it is ready.
    const late = await replica({ topic });
    await waitFor(late.ready, { timeoutMs: 30_000, description: 'the late replica caught up' });
    expect(names(late.catalog)).toEqual(['Kafka Renamed']);
    expect(late.catalog.index.size).toBe(1);

    // And both keep following the topic.
    await publisher.publish(topic, [
      { key: gone.id, value: changed({ ...gone, version: 3, names: text('Kafka Reborn') }) },
    ]);
    for (const catalog of [sut, late.catalog]) {
      await waitFor(() => names(catalog).sort().join() === 'Kafka Reborn,Kafka Renamed', {
        timeoutMs: 30_000,
        description: 'the new life of the deleted event in both replicas',
      });
    }
  });

  it('consumes availability-changed: sold-out events leave seats_available searches, in any order with their events, in every replica', async () => {
    const topic = { ...eventChangedTopic, name: uniqueName('event-changed') };
    const availabilityTopic = {
      ...availabilityChangedTopic,
      name: uniqueName('availability-changed'),
    };
    const producer = createKafkaBus({
      ...kafka,
      clientId: uniqueName('3p'),
      source: '//marquee/3p-connector',
      logger,
    });
    buses.push(producer);
    const { catalog: sut } = await replica({ topic, availabilityTopic });

    const soldOut = 'KAFKASOLD000001';
    const open = 'KAFKAOPEN000001';
    const sync = (eventId: string, sequence: number, scope: SyncScope, available: number) =>
      AvailabilityChanged.fromPartial({
        eventId,
        partnerId: 'partner-1',
        scope,
        sequence,
        totalAvailable: available,
        observedAt: new Date(),
        areas: [{ areaId: 'A', available, unavailable: 100 - available }],
      });
    // Availability first (the events are not known yet), and an older sync redelivered late.
    await producer.publish(availabilityTopic, [
      { key: soldOut, value: sync(soldOut, 2, SyncScope.SYNC_SCOPE_FULL, 0) },
      { key: soldOut, value: sync(soldOut, 1, SyncScope.SYNC_SCOPE_FULL, 50) },
      { key: open, value: sync(open, 1, SyncScope.SYNC_SCOPE_PARTIAL, 7) },
    ]);
    await producer.publish(
      topic,
      [soldOut, open].map((id) => ({
        key: id,
        value: EventChanged.fromPartial({
          event: anEventMessage({ id, names: text(`Kafkaseats ${id}`) }),
          changedAt: new Date(),
        }),
      })),
    );

    const seats = (c: Catalog) =>
      c
        .searchEvents(query({ keyword: 'kafkaseats', seatsAvailable: true }))
        .items.map((h) => h.event.id);
    const all = (c: Catalog) => c.searchEvents(query({ keyword: 'kafkaseats' })).total;
    await waitFor(() => all(sut) === 2 && seats(sut).join() === open, {
      timeoutMs: 30_000,
      description: 'both events, one sold out',
    });
    expect(sut.getEvent(soldOut).event.availability).toEqual({ soldOut: true });
    expect(sut.getEvent(open).event.availability).toBeUndefined();

    // A replica started now gives the same answers once ready.
    const late = await replica({ topic, availabilityTopic });
    await waitFor(late.ready, { timeoutMs: 30_000, description: 'the late replica caught up' });
    expect(all(late.catalog)).toBe(2);
    expect(seats(late.catalog)).toEqual([open]);

    // Tickets released in a partial sync: the event is back.
    await producer.publish(availabilityTopic, [
      { key: soldOut, value: sync(soldOut, 3, SyncScope.SYNC_SCOPE_PARTIAL, 4) },
    ]);
    await waitFor(() => seats(sut).length === 2, {
      timeoutMs: 30_000,
      description: 'the sold-out event back with seats',
    });
    expect(sut.getEvent(soldOut).event.availability).toBeUndefined();
  });
});
