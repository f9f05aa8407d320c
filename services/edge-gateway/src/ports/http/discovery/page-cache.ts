import { LRUCache } from 'lru-cache';

export interface PageCacheOptions {
  /** Memory budget of the cached pages (their JSON bytes), bytes. */
  maxBytes?: number;
  /**
   * Longest a page is served from the cache even while the catalog has not changed: what changes
   * with the clock alone (a visibility window opening, upcoming-event counts) shows within this.
   */
  maxAgeMs?: number;
}

/**
 * Rendered Discovery pages by request, each tagged with the catalog version it was computed at
 * (catalog-indexer's instance and change sequence, streamed to the edge): a page is served only
 * while the catalog still stands there, so a change makes every page computed before it a miss.
 * LRU over a byte budget (lru-cache: a well-kept implementation of exactly this).
 *
 * The edge keeps pages as Buffers: their bytes live outside the JavaScript heap, so the young
 * generation's collector does not copy every fresh 30 kB page while it is cached (strings made
 * each scavenge 15-25 ms under uncached search load, bench/discovery with --trace-gc), and a hit
 * goes to the socket without being encoded again.
 */
export function createPageCache<Body extends string | Uint8Array = Buffer>(
  options: PageCacheOptions = {},
) {
  const pages = new LRUCache<string, { version: string; body: Body }>({
    maxSize: options.maxBytes ?? 64 * 1024 * 1024,
    sizeCalculation: (page, key) => page.body.length + key.length,
    ttl: options.maxAgeMs ?? 1_000,
  });
  // Pages being computed, by key and version: concurrent misses of one page share one computation
  // instead of all asking the catalog at once when a popular page expires (a stampede).
  const computing = new Map<string, Promise<Body>>();
  const cache = {
    get(key: string, version: string): Body | undefined {
      const page = pages.get(key);
      return page !== undefined && page.version === version ? page.body : undefined;
    },
    set(key: string, version: string, body: Body): void {
      pages.set(key, { version, body });
    },
    /** The cached page, or the one being computed, or `compute()`'s, cached once it succeeds. */
    async page(key: string, version: string, compute: () => Promise<Body>): Promise<Body> {
      const cached = cache.get(key, version);
      if (cached !== undefined) return cached;
      const id = `${version}\n${key}`;
      let pending = computing.get(id);
      if (pending === undefined) {
        pending = compute().then(
          (body) => {
            computing.delete(id);
            cache.set(key, version, body);
            return body;
          },
          (error: unknown) => {
            computing.delete(id);
            throw error;
          },
        );
        computing.set(id, pending);
      }
      return pending;
    },
  };
  return cache;
}

/**
 * The UTF-8 bytes of `text` in a buffer of exactly their size. `Buffer.from` of a long ASCII string
 * reserves a 64 KiB block for 29 kB of text (Node 24), so the page cache's byte budget held more
 * than twice its size in memory.
 */
export function exactBuffer(text: string): Buffer {
  const buffer = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  buffer.write(text);
  return buffer;
}

export type PageCache = ReturnType<typeof createPageCache<Buffer>>;

/**
 * The cache key of a request: the route and its validated query without the API key (pages do not
 * depend on who asks; the key guard and the rate-limit headers still run for every request).
 */
export function pageKey(route: string, query: Record<string, unknown>): string {
  const entries = Object.keys(query)
    .filter((name) => name !== 'apikey' && query[name] !== undefined)
    .sort()
    .map((name) => [name, query[name]]);
  return `${route}?${JSON.stringify(entries)}`;
}
