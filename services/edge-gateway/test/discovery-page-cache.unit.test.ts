import { Event, type SearchEventsRequest } from '@marquee/proto/catalog/v1';
import { describe, expect, it } from 'vitest';
import type { DiscoveryCatalog } from '../src/app/discovery-catalog.js';
import { createPageCache, exactBuffer, pageKey } from '../src/ports/http/discovery/page-cache.js';
import { encodedAnswer } from './encoded-answers.js';
import { keyedAccess, useEdge } from './edge-harness.js';

/** A catalog whose answers name the search count, so a cached page is told from a fresh one. */
function countingCatalog() {
  const state = { version: 'i1:1' as string | undefined, searches: [] as SearchEventsRequest[] };
  const catalog: Partial<DiscoveryCatalog> = {
    version: () => state.version,
    async searchEventsEncoded(query) {
      state.searches.push(query);
      const n = state.searches.length;
      return encodedAnswer({
        events: [
          Event.fromPartial({ id: `EVT${n}`, names: { values: { 'en-us': `Answer ${n}` } } }),
        ],
        page: { offset: 0, limit: 20, total: 1 },
        venues: [],
        attractions: [],
      });
    },
  };
  return { state, catalog };
}

const startEdge = useEdge();

async function edge(catalog: Partial<DiscoveryCatalog>) {
  return startEdge({
    developerAccess: keyedAccess((key) => (key.startsWith('good') ? key : undefined)),
    catalog,
  });
}

const firstEventId = (body: string) =>
  (JSON.parse(body) as { _embedded: { events: { id: string }[] } })._embedded.events[0]!.id;

describe('Discovery v2 event search page cache', () => {
  it('serves a page again while the catalog version stands, to any key, with its own rate-limit headers', async () => {
    const { state, catalog } = countingCatalog();
    const app = await edge(catalog);
    const first = await app.inject({ url: '/discovery/v2/events.json?apikey=good-a&keyword=rock' });
    const again = await app.inject({ url: '/discovery/v2/events.json?keyword=rock&apikey=good-b' });

    expect(first.statusCode).toBe(200);
    expect(again.statusCode).toBe(200);
    expect(state.searches).toHaveLength(1);
    expect(again.body).toBe(first.body);
    expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(again.headers['rate-limit-available']).toBe('4999');
    // The key guard still runs for a cached page.
    const refused = await app.inject({ url: '/discovery/v2/events.json?apikey=bad&keyword=rock' });
    expect(refused.statusCode).toBe(401);
  });

  it('asks the catalog again once its version moved, for another query, and when the version is unknown', async () => {
    const { state, catalog } = countingCatalog();
    const app = await edge(catalog);
    const get = async (query: string) =>
      firstEventId(
        (await app.inject({ url: `/discovery/v2/events.json?apikey=good-a&${query}` })).body,
      );

    expect(await get('keyword=rock')).toBe('EVT1');
    expect(await get('keyword=jazz')).toBe('EVT2');
    expect(await get('keyword=rock')).toBe('EVT1');
    state.version = 'i1:2'; // an event changed
    expect(await get('keyword=rock')).toBe('EVT3');
    expect(await get('keyword=rock')).toBe('EVT3');
    state.version = 'i2:2'; // another catalog-indexer instance, same count
    expect(await get('keyword=rock')).toBe('EVT4');
    state.version = undefined; // the change stream is down: nothing is served from the cache
    expect(await get('keyword=rock')).toBe('EVT5');
    expect(await get('keyword=rock')).toBe('EVT6');
  });

  it('forgets a page after its maximum age even while the version stands', async () => {
    const pages = createPageCache<string>({ maxAgeMs: 30 });
    pages.set('k', 'v1', 'body');
    expect(pages.get('k', 'v1')).toBe('body');
    expect(pages.get('k', 'v2')).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(pages.get('k', 'v1')).toBeUndefined();
  });

  it('keys a request by route and query, whatever the order, without the API key', () => {
    expect(pageKey('/e', { apikey: 'a', size: 10, keyword: 'x' })).toBe(
      pageKey('/e', { keyword: 'x', size: 10, apikey: 'b' }),
    );
    expect(pageKey('/e', { keyword: 'x' })).not.toBe(pageKey('/e', { keyword: 'y' }));
    expect(pageKey('/e', { keyword: 'x' })).not.toBe(pageKey('/f', { keyword: 'x' }));
  });
});

describe('page cache computations', () => {
  it('shares one computation among concurrent misses of a page, and caches nothing when it fails', async () => {
    const pages = createPageCache<string>();
    let calls = 0;
    let release!: (body: string) => void;
    const compute = () => {
      calls++;
      return new Promise<string>((resolve) => (release = resolve));
    };
    const waiting = [1, 2, 3].map(() => pages.page('k', 'v1', compute));
    release('body');
    expect(await Promise.all(waiting)).toEqual(['body', 'body', 'body']);
    expect(calls).toBe(1);
    expect(await pages.page('k', 'v1', compute)).toBe('body');
    expect(calls).toBe(1);

    const failing = () => Promise.reject(new Error('catalog down'));
    await expect(pages.page('k', 'v2', failing)).rejects.toThrow('catalog down');
    expect(await pages.page('k', 'v2', async () => 'fresh')).toBe('fresh');
  });
});

describe('exactBuffer', () => {
  it('holds the UTF-8 bytes of the text in memory of exactly their size', () => {
    const text = JSON.stringify({ name: 'x'.repeat(29_000), city: 'Malmö' });
    const buffer = exactBuffer(text);
    expect(buffer.toString()).toBe(text);
    expect(buffer.buffer.byteLength).toBe(Buffer.byteLength(text));
  });
});
