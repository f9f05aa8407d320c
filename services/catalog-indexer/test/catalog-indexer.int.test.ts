import { afterAll, beforeAll, expect, it } from 'vitest';
import { availabilityChangedTopic, eventChangedTopic } from '@marquee/proto';
import { AvailabilityChanged, EventChanged, SyncScope } from '@marquee/proto/catalog/v1';
import { createKafkaBus, type EventBus } from '@marquee/platform/bus';
import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { describeIntegration, uniqueName, waitFor } from '@marquee/platform/testing';
import type { Connection } from 'mongoose';
import { createMongoAvailabilityRecords } from '../src/adapters/availability-records.js';
import { createMongoEventRecords } from '../src/adapters/mongo-event-records.js';
import { Catalog } from '../src/app/catalog.js';
import { buildCatalogIndexer } from '../src/service.js';
import { anEvent, query, text } from './builders.js';
import { availabilityRecordsContract } from './availability-records.contract.js';
import { eventRecordsContract } from './event-records.contract.js';

describeIntegration('catalog-indexer on real Kafka and Mongo', ({ kafkaBrokers, mongoUrl }) => {
  const logger = createLogger({ service: 'catalog-indexer-test', level: 'silent' });
  let mongo: Connection;
  const buses: EventBus[] = [];

  beforeAll(async () => {
    mongo = await connectMongo({
      url: mongoUrl,
      dbName: uniqueName('catalog').replace(/-/g, '_'),
      logger,
      appName: 'catalog-indexer-test',
    });
  });
  afterAll(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
    await mongo?.dropDatabase();
    await closeMongo(mongo);
  });

  eventRecordsContract('mongo', async () => {
    const sut = createMongoEventRecords(mongo, uniqueName('events').replace(/-/g, '_'));
    await sut.ensureIndexes();
    return sut;
  });

  availabilityRecordsContract('mongo', async () => {
    const sut = createMongoAvailabilityRecords(
      mongo,
      uniqueName('availability').replace(/-/g, '_'),
    );
    await sut.ensureIndexes();
    return sut;
  });

  it('consumes event-changed into the Mongo read model: updates, stale redeliveries, tombstones, rebuild', async () => {
    const topic = { ...eventChangedTopic, name: uniqueName('event-changed') };
    const bus = createKafkaBus({
      brokers: kafkaBrokers,
      clientId: uniqueName('ci'),
      source: '//marquee/catalog-indexer',
      logger,
    });
    const publisher = createKafkaBus({
      brokers: kafkaBrokers,
      clientId: uniqueName('pub'),
      source: '//marquee/publisher',
      logger,
    });
    buses.push(bus, publisher);
    const { catalog: sut } = await buildCatalogIndexer(
      { name: 'catalog-indexer', logger, bus, mongo },
      { topic, group: uniqueName('catalog-indexer') },
    );
    await bus.start();

    const kept = anEvent({ id: 'KAFKAKEPT000001', version: 1, names: text('Kafka Original') });
    const gone = anEvent({ id: 'KAFKAGONE000001', version: 1, names: text('Kafka Doomed') });
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
    await waitFor(
      async () => {
        const gone = await createMongoEventRecords(mongo).get('KAFKAGONE000001');
        return gone?.deleted === true && names(sut).join() === 'Kafka Renamed';
      },
      { timeoutMs: 30_000, description: 'the update and the deletion' },
    );
    // Rebuild from the read model alone gives the same answers.
    const rebuilt = new Catalog({
      records: createMongoEventRecords(mongo),
      availability: createMongoAvailabilityRecords(mongo),
    });
    await rebuilt.rebuild();
    expect(names(rebuilt)).toEqual(['Kafka Renamed']);
  });

  it('consumes availability-changed: sold-out events leave seats_available searches, in any order with their events, and survive a rebuild', async () => {
    const topic = { ...eventChangedTopic, name: uniqueName('event-changed') };
    const availabilityTopic = {
      ...availabilityChangedTopic,
      name: uniqueName('availability-changed'),
    };
    const bus = createKafkaBus({
      brokers: kafkaBrokers,
      clientId: uniqueName('ci'),
      source: '//marquee/catalog-indexer',
      logger,
    });
    const producer = createKafkaBus({
      brokers: kafkaBrokers,
      clientId: uniqueName('3p'),
      source: '//marquee/3p-connector',
      logger,
    });
    buses.push(bus, producer);
    const { catalog: sut } = await buildCatalogIndexer(
      { name: 'catalog-indexer', logger, bus, mongo },
      { topic, availabilityTopic, group: uniqueName('catalog-indexer') },
    );
    await bus.start();

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
          event: anEvent({ id, names: text(`Kafkaseats ${id}`) }),
          changedAt: new Date(),
        }),
      })),
    );

    const seats = (c: Catalog) =>
      c
        .searchEvents(query({ keyword: 'kafkaseats', seatsAvailable: true }))
        .items.map((h) => h.event.id);
    const all = (c: Catalog) => c.searchEvents(query({ keyword: 'kafkaseats' })).total;
    await waitFor(
      async () => {
        const held = await createMongoAvailabilityRecords(mongo).get(soldOut);
        return held?.sequence === 2 && all(sut) === 2 && seats(sut).join() === open;
      },
      { timeoutMs: 30_000, description: 'both events, one sold out' },
    );
    expect(sut.getEvent(soldOut).event.availability).toEqual({ soldOut: true });
    expect(sut.getEvent(open).event.availability).toBeUndefined();
    expect((await createMongoAvailabilityRecords(mongo).get(soldOut))?.totalAvailable).toBe(0);

    // Rebuild from the read model alone gives the same answers.
    const rebuilt = new Catalog({
      records: createMongoEventRecords(mongo),
      availability: createMongoAvailabilityRecords(mongo),
    });
    await rebuilt.rebuild();
    expect(all(rebuilt)).toBe(2);
    expect(seats(rebuilt)).toEqual([open]);

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
