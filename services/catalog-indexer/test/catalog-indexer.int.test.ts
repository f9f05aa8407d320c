import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventChangedTopic } from '@marquee/proto';
import { EventChanged } from '@marquee/proto/catalog/v1';
import { createKafkaBus, type EventBus } from '@marquee/platform/bus';
import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { describeIntegration, uniqueName, waitFor } from '@marquee/platform/testing';
import type { Connection } from 'mongoose';
import { createMongoEventRecords } from '../src/adapters/mongo-event-records.js';
import { Catalog } from '../src/app/catalog.js';
import { buildCatalogIndexer } from '../src/service.js';
import { anEvent, query, text } from './builders.js';
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
    const rebuilt = new Catalog({ records: createMongoEventRecords(mongo) });
    await rebuilt.rebuild();
    expect(names(rebuilt)).toEqual(['Kafka Renamed']);
  });
});
