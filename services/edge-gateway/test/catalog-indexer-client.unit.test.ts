import { Event, SearchEventsRequest } from '@marquee/proto/catalog/v1';
import { describe, expect, it } from 'vitest';
import { createCatalogIndexerClient } from '../src/adapters/catalog-indexer-client.js';
import { fakeCatalogServer, logger, until, watchedCatalog } from './fake-catalog.js';

/** A CatalogService answering WatchChanges only, whose sequence the test moves. */
const watchOnlyCatalog = (port = 0) => watchedCatalog('inst', {}, port);

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
    const { port, stop } = await fakeCatalogServer({
      searchEvents: (_call: unknown, callback: (e: null, r: typeof answer) => void) =>
        callback(null, answer),
    });
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
      await stop();
    }
  });

  it('hands over the rendered event documents the catalog sent', async () => {
    const documents = '{"name":"One","id":"EVT1"},{"name":"Two","id":"EVT2"}';
    const { port, stop } = await fakeCatalogServer({
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
    });
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
      await stop();
    }
  });
});
