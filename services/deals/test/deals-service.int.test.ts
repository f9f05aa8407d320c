import { createKafkaBus, type EventBus } from '@marquee/platform/bus';
import { callUnary, createGrpcClient, runAsService } from '@marquee/platform/grpc';
import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { hostService, type HostedService } from '@marquee/platform/service';
import { describeIntegration, uniqueName, waitFor } from '@marquee/platform/testing';
import { CatalogServiceService, DiscoveryVenue, Event } from '@marquee/proto/catalog/v1';
import {
  DealsServiceClient,
  Exclusivity,
  SearchDealsRequest,
  type DealChanged,
} from '@marquee/proto/deals/v1';
import { dealChangedTopic, eventChangedTopic } from '@marquee/proto/topics';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadDealsConfig } from '../src/config.js';
import { composeDeals } from '../src/service.js';
import { dealsService } from '../src/index.js';

/**
 * deals as one process sees it: real Kafka in and out, a real Mongo-wire database, gRPC in front.
 */
describeIntegration('deals service with Kafka and Mongo', ({ kafka, mongoUrl }) => {
  const logger = createLogger({ service: 'deals-int', level: 'warn' });
  const dbName = uniqueName('dealsint').replace(/-/g, '_');
  // The catalog's event-changed under a fresh name: the fresh database reads its topic from the
  // beginning, and on a shared broker the real topic holds every event other suites and e2e runs
  // ever published; projecting those first took longer than any wait here on a loaded machine.
  const eventTopic = { ...eventChangedTopic, name: uniqueName('event-changed') };
  let mongo: Connection;
  let bus: EventBus;
  let testBus: EventBus;
  let hosted: HostedService;
  let catalog: HostedService;
  let client: DealsServiceClient;
  const dealChanges: DealChanged[] = [];

  const startDeals = async () => {
    mongo = await connectMongo({ url: mongoUrl, dbName, logger, appName: 'deals-int' });
    bus = createKafkaBus({
      ...kafka,
      clientId: 'deals-int',
      source: 'marquee/deals',
      logger,
    });
    const config = loadDealsConfig({
      MONGO_DB: dbName,
      LOG_LEVEL: 'warn',
      GRPC_ADDR_CATALOG_INDEXER: `127.0.0.1:${catalog.grpcPort}`,
    });
    const infra = { name: 'deals', logger, bus, mongo };
    // Composed as its runner composes it: its catalog client speaks for deals.
    const parts = await runAsService('deals', () => composeDeals(infra, config, { eventTopic }));
    hosted = await hostService(infra, parts, {
      host: '127.0.0.1',
      httpPort: 0,
      grpcPort: 0,
      callers: dealsService.callers!,
    });
    await bus.start();
    client = createGrpcClient(DealsServiceClient, `127.0.0.1:${hosted.grpcPort}`, {
      deadlineMs: 5_000,
      caller: 'edge-gateway',
    });
    // Ready once the projection and every deal write are read up to where the topics ended.
    await waitFor(async () => (await hosted.http.inject('/readyz')).statusCode === 200, {
      timeoutMs: 30_000,
      description: 'deals ready',
    });
  };
  const stopDeals = async () => {
    client?.close();
    await hosted?.stop();
    await bus?.close();
  };

  beforeAll(async () => {
    testBus = createKafkaBus({
      ...kafka,
      clientId: 'deals-int-test',
      source: 'marquee/test',
      logger,
    });
    // From the beginning: start() does not wait for the group to join, and a new group reading
    // from the end would begin at whatever the end is when it joins, possibly after our deal's
    // record on a loaded machine. Other runs' records are ignored (the test looks for its deal).
    await testBus.subscribe(
      dealChangedTopic,
      { group: uniqueName('deals-int-observer'), fromBeginning: true },
      async (e) => {
        if (e.value) dealChanges.push(e.value);
      },
    );
    await testBus.start();
    // A stand-in for catalog-indexer: the shared topic holds other suites' events whose venues are
    // referenced by id; this one knows every venue (without coordinates).
    const catalogInfra = { name: 'catalog-fake', logger, bus: testBus, mongo: undefined };
    catalog = await hostService(
      catalogInfra,
      {
        grpc: [
          {
            definition: CatalogServiceService,
            implementation: {
              getVenue: (
                call: { request: { id: string } },
                callback: (e: null, r: { venue: DiscoveryVenue }) => void,
              ) => callback(null, { venue: DiscoveryVenue.fromPartial({ id: call.request.id }) }),
            },
          },
        ],
      },
      {
        host: '127.0.0.1',
        httpPort: 0,
        grpcPort: 0,
        // catalog-indexer's declaration for the RPC deals calls.
        callers: { 'marquee.catalog.v1.CatalogService': { GetVenue: ['edge-gateway', 'deals'] } },
      },
    );
    await startDeals();
  });
  afterAll(async () => {
    await stopDeals();
    await catalog?.stop();
    await testBus?.close();
    if (mongo) {
      await mongo.dropDatabase();
      await closeMongo(mongo, logger);
    }
  });

  const eventId = uniqueName('E').replace(/-/g, '');
  const event = (version: number, name: string) =>
    Event.fromPartial({
      id: eventId,
      version,
      active: true,
      url: 'https://example.com/e',
      names: { values: { 'en-us': name } },
      dates: { start: { dateTime: new Date('2031-05-01T19:00:00Z') } },
      location: {
        $case: 'place',
        value: {
          names: { values: { 'en-us': 'Hall' } },
          country: { countryCode: 'US' },
          location: { latitude: 40.7, longitude: -74 },
        },
      },
      marketIds: [35],
    });
  const search = () =>
    callUnary(client, 'searchDeals', SearchDealsRequest.fromPartial({ country: 'US', dealId: '' }));
  const namesFound = async () =>
    (await search()).events.filter((e) => e.eventId === eventId).map((e) => e.eventName);

  it('projects event-changed, publishes deal-changed, keeps state across a restart, and deletes on a tombstone', async () => {
    await testBus.publish(eventTopic, [
      { key: eventId, value: { event: event(2, 'Second'), changedAt: new Date() } },
    ]);

    const created = await waitFor(
      async () =>
        callUnary(client, 'createDeal', {
          eventId,
          name: 'Deal',
          description: 'Cheap',
          offerCode: 'X',
          exclusivity: Exclusivity.EXCLUSIVITY_EXCLUSIVE,
        }),
      { timeoutMs: 30_000 },
    );
    const dealId = created!.deal!.id;
    expect(await namesFound()).toEqual(['Second']);

    // An older state arriving late changes nothing.
    await testBus.publish(eventTopic, [
      { key: eventId, value: { event: event(1, 'First'), changedAt: new Date() } },
    ]);
    await testBus.publish(eventTopic, [
      { key: eventId, value: { event: event(3, 'Third'), changedAt: new Date() } },
    ]);
    await waitFor(async () => (await namesFound())[0] === 'Third', { timeoutMs: 30_000 });

    await waitFor(async () => dealChanges.some((c) => c.deal?.id === dealId), {
      timeoutMs: 30_000,
    });
    expect(dealChanges.find((c) => c.deal?.id === dealId)!.deal).toMatchObject({
      eventId,
      name: 'Deal',
      state: 'DEAL_STATE_ACTIVE',
    });

    await stopDeals();
    await closeMongo(mongo, logger);
    await startDeals();
    expect(await namesFound()).toEqual(['Third']);

    await testBus.publish(eventTopic, [{ key: eventId, value: null }]);
    await waitFor(async () => (await namesFound()).length === 0, { timeoutMs: 30_000 });
    // The tombstone ended the deal (once, by the shared group), announced on deal-changed.
    await waitFor(
      async () =>
        (await callUnary(client, 'getDeal', { id: dealId })).deal!.state === 'DEAL_STATE_ENDED',
      { timeoutMs: 30_000, description: 'the deal ended with its event' },
    );
  });

  it("a second replica sees the projection and the other replica's deal writes", async () => {
    const otherEvent = uniqueName('E').replace(/-/g, '');
    await testBus.publish(eventTopic, [
      { key: otherEvent, value: { event: { ...event(1, 'Replicated'), id: otherEvent } } },
    ]);
    // Replica B: its own process as far as Kafka can tell, the same database.
    const otherMongo = await connectMongo({
      url: mongoUrl,
      dbName,
      logger,
      appName: 'deals-int-b',
    });
    const otherBus = createKafkaBus({
      ...kafka,
      clientId: 'deals-int-b',
      source: 'marquee/deals',
      logger,
    });
    const config = loadDealsConfig({
      MONGO_DB: dbName,
      LOG_LEVEL: 'warn',
      GRPC_ADDR_CATALOG_INDEXER: `127.0.0.1:${catalog.grpcPort}`,
    });
    const infra = { name: 'deals', logger, bus: otherBus, mongo: otherMongo };
    const parts = await runAsService('deals', () => composeDeals(infra, config, { eventTopic }));
    const other = await hostService(infra, parts, {
      host: '127.0.0.1',
      httpPort: 0,
      grpcPort: 0,
      callers: dealsService.callers!,
    });
    await otherBus.start();
    const otherClient = createGrpcClient(DealsServiceClient, `127.0.0.1:${other.grpcPort}`, {
      deadlineMs: 5_000,
      caller: 'edge-gateway',
    });
    const found = async (on: DealsServiceClient) =>
      (
        await callUnary(on, 'searchDeals', SearchDealsRequest.fromPartial({ country: 'US' }))
      ).events.filter((e) => e.eventId === otherEvent);
    try {
      await waitFor(async () => (await other.http.inject('/readyz')).statusCode === 200, {
        timeoutMs: 30_000,
        description: 'replica B ready',
      });
      // Written through replica A…
      const created = await waitFor(
        async () =>
          callUnary(client, 'createDeal', {
            eventId: otherEvent,
            name: 'Everywhere',
            description: 'On every replica',
            offerCode: '',
            exclusivity: Exclusivity.EXCLUSIVITY_NONEXCLUSIVE,
          }),
        { timeoutMs: 30_000 },
      );
      // …found through replica B (deal-changed), and ended through B, gone from A.
      await waitFor(async () => (await found(otherClient)).length === 1, {
        timeoutMs: 30_000,
        description: "replica A's deal in replica B",
      });
      await callUnary(otherClient, 'endDeal', { id: created!.deal!.id });
      await waitFor(async () => (await found(client)).length === 0, {
        timeoutMs: 30_000,
        description: "replica B's end in replica A",
      });
      expect(await found(otherClient)).toEqual([]);
    } finally {
      otherClient.close();
      await other.stop();
      await otherBus.close();
      await closeMongo(otherMongo, logger);
    }
  });
});
