import type * as grpc from '@grpc/grpc-js';
import { createGrpcServer, startGrpcServer, stopGrpcServer } from '@marquee/platform/grpc';
import { createLogger } from '@marquee/platform/logger';
import {
  CatalogServiceService,
  Event,
  SearchEventsRequest,
  type WatchChangesResponse,
} from '@marquee/proto/catalog/v1';
import { describe, expect, it } from 'vitest';
import { createCatalogIndexerClient } from '../src/adapters/catalog-indexer-client.js';

const logger = createLogger({ service: 'edge-test', level: 'silent' });

/** The fake catalog admits the edge's clients as this test makes them: outside any service. */
const callers = {
  'marquee.catalog.v1.CatalogService': Object.fromEntries(
    Object.values(CatalogServiceService).map((method) => [method.path.split('/')[2]!, ['unnamed']]),
  ),
};

/** A CatalogService answering WatchChanges only, whose sequence the test moves. */
async function watchOnlyCatalog(port = 0) {
  const streams = new Set<grpc.ServerWritableStream<unknown, WatchChangesResponse>>();
  const state = { sequence: 1 };
  const server = createGrpcServer({
    logger,
    callers,
    services: [
      {
        definition: CatalogServiceService,
        implementation: {
          watchChanges(call: grpc.ServerWritableStream<unknown, WatchChangesResponse>) {
            streams.add(call);
            call.on('cancelled', () => streams.delete(call));
            call.write({ instance: 'inst', sequence: state.sequence });
          },
        },
      },
    ],
  });
  const bound = await startGrpcServer(server, { host: '127.0.0.1', port });
  return {
    port: bound,
    change() {
      state.sequence += 1;
      for (const call of streams) call.write({ instance: 'inst', sequence: state.sequence });
    },
    async stop() {
      for (const call of streams) call.end();
      await stopGrpcServer(server, 1_000);
    },
  };
}

const until = async (check: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('catalog-indexer client: the catalog version from WatchChanges', () => {
  it('follows the sequence, is unknown while the stream is down, and reconnects', async () => {
    let catalog = await watchOnlyCatalog();
    const port = catalog.port;
    const sut = createCatalogIndexerClient(`127.0.0.1:${port}`, { deadlineMs: 5_000, logger });
    try {
      expect(sut.version()).toBeUndefined(); // the first use opens the stream
      await until(() => sut.version() === 'inst:1');
      catalog.change();
      await until(() => sut.version() === 'inst:2');

      await catalog.stop();
      await until(() => sut.version() === undefined);

      catalog = await watchOnlyCatalog(port);
      catalog.change();
      await until(() => sut.version() === 'inst:2'); // retried 1 s after the loss
    } finally {
      sut.close();
      await catalog.stop();
    }
    expect(sut.version()).toBeUndefined();
  });
});

describe('catalog-indexer client: event search', () => {
  it('hands the events over encoded, or decoded, with the rest of the answer', async () => {
    const events = [
      Event.fromPartial({ id: 'EVT1', version: 3, names: { values: { 'en-us': 'One' } } }),
      Event.fromPartial({ id: 'EVT2', version: 1, names: { values: { 'en-us': 'Two' } } }),
    ];
    const decoded = {
      events,
      page: { offset: 0, limit: 20, total: 2 },
      venues: [],
      attractions: [],
    };
    const answer = { ...decoded, eventDocuments: Buffer.alloc(0) };
    const server = createGrpcServer({
      logger,
      callers,
      services: [
        {
          definition: CatalogServiceService,
          implementation: {
            searchEvents: (_call: unknown, callback: (e: null, r: typeof answer) => void) =>
              callback(null, answer),
          },
        },
      ],
    });
    const port = await startGrpcServer(server, { host: '127.0.0.1', port: 0 });
    const sut = createCatalogIndexerClient(`127.0.0.1:${port}`, { deadlineMs: 5_000, logger });
    try {
      const query = SearchEventsRequest.fromPartial({ keyword: 'one' });
      const encoded = await sut.searchEventsEncoded(query);
      expect(encoded.events.map((bytes) => Buffer.from(bytes))).toEqual(
        events.map((e) => Buffer.from(Event.encode(e).finish())),
      );
      expect(encoded.page).toEqual(answer.page);
      // Not asked for and not sent: absent, so the edge renders the events.
      expect(encoded.documents).toBeUndefined();
      expect(await sut.searchEvents(query)).toEqual(decoded);
    } finally {
      sut.close();
      await stopGrpcServer(server, 1_000);
    }
  });

  it('hands over the rendered event documents the catalog sent', async () => {
    const documents = '{"name":"One","id":"EVT1"},{"name":"Two","id":"EVT2"}';
    const server = createGrpcServer({
      logger,
      callers,
      services: [
        {
          definition: CatalogServiceService,
          implementation: {
            searchEvents: (
              call: { request: SearchEventsRequest },
              callback: (e: null, r: unknown) => void,
            ) =>
              callback(null, {
                events: [],
                page: { offset: 0, limit: 20, total: 2 },
                venues: [],
                attractions: [],
                eventDocuments: call.request.documents ? Buffer.from(documents) : Buffer.alloc(0),
              }),
          },
        },
      ],
    });
    const port = await startGrpcServer(server, { host: '127.0.0.1', port: 0 });
    const sut = createCatalogIndexerClient(`127.0.0.1:${port}`, { deadlineMs: 5_000, logger });
    try {
      const encoded = await sut.searchEventsEncoded(
        SearchEventsRequest.fromPartial({ keyword: 'one', documents: true }),
      );
      expect(Buffer.from(encoded.documents!).toString()).toBe(documents);
      expect(encoded.events).toEqual([]);
      expect(encoded.page).toEqual({ offset: 0, limit: 20, total: 2 });
    } finally {
      sut.close();
      await stopGrpcServer(server, 1_000);
    }
  });
});
