/**
 * Discovery search benchmark: 100,000 generated events in a running catalog-indexer, searched
 * through the edge's Discovery v2 routes (`GET /discovery/v2/events.json`) with autocannon at 100
 * concurrent connections — keyword, geo-radius and date-range queries — next to a plain fastify
 * handler returning a fixed page of the same size; plus the publish-to-visible latency (an
 * `event-changed` record published until the event answers on the edge) and the index's memory.
 *
 * Three processes, as deployed (edge and catalog-indexer apart), and the load generator apart:
 *  - "catalog": catalog-indexer with its in-memory read model and bus (the embedded default's
 *    adapters); it seeds the events through `event-changed` on the bus, exactly as the publisher
 *    feeds them, and later measures publish-to-visible against the edge;
 *  - "edge": the edge's HTTP surface wired to catalog-indexer over real gRPC, with an API-key port
 *    that accepts every key (auth-gateway's per-app quota of 5 requests/s would be measured
 *    otherwise), and the plain fastify baseline on the same server factory;
 *  - the parent drives one run per scenario — autocannon closed loops, or for the quota-paced
 *    scenarios 100 clients at 5 requests/s each (../paced.ts) — and prints one JSON report.
 *
 * Usage: pnpm --filter @marquee/bench discovery   (node --v8-pool-size=1 …; after `pnpm -s turbo run build --filter=@marquee/bench...`)
 * Env: DISCOVERY_BENCH_EVENTS (100000), DISCOVERY_BENCH_SECONDS (8 per scenario),
 *      DISCOVERY_BENCH_CONNECTIONS (100), DISCOVERY_BENCH_VISIBILITY_SAMPLES (200),
 *      DISCOVERY_BENCH_CLIENT_RATE (5), DISCOVERY_BENCH_ONLY, DISCOVERY_BENCH_PROFILE,
 *      DISCOVERY_BENCH_TRACE_GC, DISCOVERY_BENCH_NODE_FLAGS, DISCOVERY_BENCH_HEAP_SNAPSHOT,
 *      DISCOVERY_BENCH_TIMELINE, DISCOVERY_BENCH_WARMUP_SECONDS (3), DISCOVERY_BENCH_PROMOTED
 *      (bench/README.md).
 */
import { Session } from 'node:inspector/promises';
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { runPaced, type PacedResult } from '../paced.ts';
import { random } from '../random.ts';
import { latencyMsOf, percentile } from '../stats.ts';

const EVENTS = Number(process.env.DISCOVERY_BENCH_EVENTS ?? 100_000);
const SECONDS = Number(process.env.DISCOVERY_BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.DISCOVERY_BENCH_CONNECTIONS ?? 100);
const SAMPLES = Number(process.env.DISCOVERY_BENCH_VISIBILITY_SAMPLES ?? 200);
/**
 * Requests per second of one client in the quota-paced scenarios: a Discovery API key's default
 * quota is 5 requests/second, so 100 clients that keep to it offer 500 requests/s.
 */
const CLIENT_RATE = Number(process.env.DISCOVERY_BENCH_CLIENT_RATE ?? 5);
/** Seconds the paced clients run unmeasured before each paced scenario (steady state only). */
const WARMUP_SECONDS = Number(process.env.DISCOVERY_BENCH_WARMUP_SECONDS ?? 3);

/** Cities (country, state, market id, coordinates): US markets (deals' table) and European domains. */
const cities = [
  ['New York', 'US', 'NY', 35, 40.7505, -73.9934],
  ['Los Angeles', 'US', 'CA', 27, 34.043, -118.2673],
  ['Chicago', 'US', 'IL', 3, 41.8807, -87.6742],
  ['Houston', 'US', 'TX', 22, 29.6847, -95.4107],
  ['Boston', 'US', 'MA', 11, 42.3662, -71.0621],
  ['Seattle', 'US', 'WA', 42, 47.6221, -122.354],
  ['Atlanta', 'US', 'GA', 10, 33.7573, -84.3963],
  ['Miami', 'US', 'FL', 15, 25.7814, -80.187],
  ['Denver', 'US', 'CO', 6, 39.7487, -105.0077],
  ['Toronto', 'CA', 'ON', 102, 43.6435, -79.3791],
  ['Berlin', 'DE', '', 210, 52.5051, 13.4436],
  ['Madrid', 'ES', '', 503, 40.4168, -3.7038],
  ['Stockholm', 'SE', '', 500, 59.3293, 18.0686],
  ['Amsterdam', 'NL', '', 211, 52.3676, 4.9041],
  ['Vienna', 'AT', '', 0, 48.2082, 16.3738],
  ['Oslo', 'NO', '', 0, 59.9139, 10.7522],
] as const;
const genres = [
  'Rock',
  'Pop',
  'Jazz',
  'Country',
  'Hip-Hop',
  'Classical',
  'Comedy',
  'Theatre',
  'Basketball',
  'Hockey',
];
const words = [
  'Night',
  'Festival',
  'Tour',
  'Live',
  'Gala',
  'Session',
  'Showcase',
  'Revue',
  'Classic',
  'Summer',
];

const round = (n: number) => Math.round(n * 100) / 100;

async function catalogProcess(): Promise<void> {
  const { createMemoryBus } = await import('@marquee/platform/bus');
  const { createLogger } = await import('@marquee/platform/logger');
  const { hostService } = await import('@marquee/platform/service');
  const { catalogV1, eventChangedTopic } = await import('@marquee/proto');
  const { buildCatalogIndexer, catalogIndexerService, eventQueryOf } =
    await import('@marquee/catalog-indexer');
  const { applyV8Flags } = await import('@marquee/platform/v8');
  // As the service process does (runService): its own V8 flags first.
  applyV8Flags(catalogIndexerService.v8?.runtimeFlags);

  const logger = createLogger({ service: 'discovery-bench', level: 'warn' });
  // As deployed, the catalog reads Kafka: records it consumed are not in its heap.
  const bus = createMemoryBus({ source: 'marquee/bench', retain: 'unconsumed' });
  const infra = { name: 'catalog-indexer', logger, bus, mongo: undefined };
  const { parts, catalog } = await buildCatalogIndexer(infra);
  const hosted = await hostService(infra, parts, {
    host: '127.0.0.1',
    httpPort: 0,
    grpcPort: 0,
    callers: catalogIndexerService.callers!,
  });
  await bus.start();

  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const next = random(7);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const start = Date.UTC(2030, 0, 1);
  const eventAt = (id: string, i: number) => {
    const [city, country, state, market, lat, lon] = pick(cities);
    const genre = pick(genres);
    return catalogV1.Event.fromPartial({
      id,
      version: 1,
      active: true,
      test: next() < 0.01,
      url: `https://tickets.example.com/${id}`,
      source: { id: 'bench', name: 'bench' },
      names: { values: { 'en-us': `${genre} ${pick(words)} ${pick(words)} ${i}` } },
      attractions: [
        {
          ref: { $case: 'id', value: `K${Math.floor(next() * 10_000)}` },
          names: { values: { 'en-us': `Performer ${i % 10_000}` } },
        },
      ],
      classifications: [
        {
          primary: true,
          genre: { id: `KG${genres.indexOf(genre)}`, names: { values: { 'en-us': genre } } },
        },
      ],
      dates: {
        start: {
          dateTime: new Date(start + Math.floor(next() * 730) * 86_400_000 + 72_000_000),
          localDate: '2030-01-01',
          localTime: '20:00:00',
        },
        timezone: 'UTC',
      },
      location: {
        $case: 'place',
        value: {
          names: { values: { 'en-us': `${city} Hall ${i % 200}` } },
          cityNames: { values: { 'en-us': city } },
          state: state ? { stateCode: state } : undefined,
          country: { countryCode: country },
          postalCode: String(10_000 + (i % 200)),
          location: { latitude: lat + (next() - 0.5) * 0.4, longitude: lon + (next() - 0.5) * 0.4 },
        },
      },
      priceRanges: [
        {
          type: catalogV1.PriceRangeType.PRICE_RANGE_TYPE_STANDARD,
          min: { amountMinor: 2000, currency: 'USD' },
          max: { amountMinor: 15000, currency: 'USD' },
        },
      ],
      marketIds: market ? [market] : [],
      status: catalogV1.EventStatus.EVENT_STATUS_ONSALE,
    });
  };
  const seedStarted = performance.now();
  for (let batch = 0; batch < EVENTS; batch += 1000) {
    const records = [];
    for (let i = batch; i < Math.min(EVENTS, batch + 1000); i++) {
      const id = `BENCH${String(i).padStart(10, '0')}`;
      records.push({ key: id, value: { event: eventAt(id, i), changedAt: new Date() } });
    }
    await bus.publish(eventChangedTopic, records);
  }
  while (catalog.index.size < EVENTS) await new Promise((resolve) => setTimeout(resolve, 50));
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  gc?.();
  const indexHeapMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
  // What a full collection of this heap costs (stop-the-world here; V8 marks incrementally and on a
  // helper thread in service, but the work is the same and grows with the objects the index holds).
  const fullGcMs: number[] = [];
  for (let n = 0; n < 5 && gc; n++) {
    const t0 = performance.now();
    gc();
    fullGcMs.push(performance.now() - t0);
  }
  fullGcMs.sort((a, b) => a - b);
  // DISCOVERY_BENCH_HEAP_SNAPSHOT=<file>: what the seeded catalog process holds, for a heap viewer.
  if (process.env.DISCOVERY_BENCH_HEAP_SNAPSHOT) {
    const { writeHeapSnapshot } = await import('node:v8');
    writeHeapSnapshot(process.env.DISCOVERY_BENCH_HEAP_SNAPSHOT);
  }
  // The search alone, in process and one query at a time: what the index costs, apart from HTTP,
  // gRPC, rendering and whatever else the machine is doing.
  const { EventSort } = catalogV1;
  const { SearchEventsRequest } = catalogV1;
  const indexQueries: Array<[string, ReturnType<typeof SearchEventsRequest.fromPartial>]> = [
    ['keyword (one word, relevance)', SearchEventsRequest.fromPartial({ keyword: 'rock' })],
    [
      'keyword (two words, date sort)',
      SearchEventsRequest.fromPartial({
        keyword: 'jazz festival',
        sort: EventSort.EVENT_SORT_DATE_ASC,
      }),
    ],
    [
      'geo radius 25 miles (Chicago)',
      SearchEventsRequest.fromPartial({
        latlong: { latitude: 41.88, longitude: -87.67 },
        radius: 25,
      }),
    ],
    [
      'date range (3 months)',
      SearchEventsRequest.fromPartial({
        startDateTime: new Date('2030-06-01T00:00:00Z'),
        endDateTime: new Date('2030-09-01T00:00:00Z'),
      }),
    ],
    ['no filter (most recent 20)', SearchEventsRequest.fromPartial({})],
  ];
  const indexMs: Record<string, { p50: number; p99: number }> = {};
  for (const [name, request] of indexQueries) {
    // As the gRPC port maps a request, once: the loop times the index alone.
    const query = eventQueryOf(request);
    const times: number[] = [];
    for (let n = 0; n < 60; n++) {
      const t0 = performance.now();
      catalog.searchEvents(query);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    indexMs[name] = { p50: round(percentile(times, 50)), p99: round(percentile(times, 99)) };
  }
  process.send!({
    grpcPort: hosted.grpcPort,
    timeOrigin: performance.timeOrigin,
    seedSeconds,
    indexHeapMb,
    fullGcMs: fullGcMs[Math.floor(fullGcMs.length / 2)] ?? null,
    rssMb: process.memoryUsage().rss / 1e6,
    indexMs,
  });
  const { edgePort: port } = await new Promise<{ edgePort: number }>((resolve) =>
    process.once('message', (m) => resolve(m as never)),
  );

  // Publish-to-visible, one event at a time with nothing else running: record published on the
  // bus → consumer → read model → index → answered by the edge's event details route.
  const visible: number[] = [];
  for (let n = 0; n < SAMPLES; n++) {
    const id = `VISIBLE${String(n).padStart(8, '0')}`;
    const t0 = performance.now();
    await bus.publish(eventChangedTopic, [
      { key: id, value: { event: eventAt(id, n), changedAt: new Date() } },
    ]);
    for (;;) {
      const response = await fetch(`http://127.0.0.1:${port}/discovery/v2/events/${id}?apikey=k`);
      await response.arrayBuffer();
      if (response.status === 200) break;
    }
    visible.push(performance.now() - t0);
  }
  visible.sort((a, b) => a - b);

  process.send!({
    visibleMs: {
      p50: percentile(visible, 50),
      p99: percentile(visible, 99),
      max: visible.at(-1) ?? 0,
    },
  });
}

async function edgeProcess(grpcPort: number): Promise<void> {
  const { createLogger } = await import('@marquee/platform/logger');
  const { createHttpServer, listenHttp } = await import('@marquee/platform/http');
  const { createCatalogIndexerClient, edgeGatewayService, registerEdgeRoutes } =
    await import('@marquee/edge-gateway');
  const { applyV8Flags } = await import('@marquee/platform/v8');
  const { runAsService } = await import('@marquee/platform/grpc');
  applyV8Flags(edgeGatewayService.v8?.runtimeFlags);
  const logger = createLogger({ service: 'discovery-bench-edge', level: 'warn' });
  const hosted = { grpcPort };
  const edge = createHttpServer({ logger });
  await registerEdgeRoutes(edge, {
    adminToken: 'bench-admin-token-0123456789',
    version: 'bench',
    backends: {
      developerAccess: {
        createApp: async () => ({ apiKey: '', clientId: '', clientSecret: '' }),
        createFan: async () => ({ id: '' }),
        validateApiKey: async () => ({ valid: true, appId: 'bench' }),
        checkRateLimit: async () => ({ limit: 1e9, available: 1e9, resetEpochMs: 0, over: false }),
      },
      // As the edge: the catalog answers no one else.
      catalog: runAsService('edge-gateway', () =>
        createCatalogIndexerClient(`127.0.0.1:${hosted.grpcPort}`, { deadlineMs: 10_000, logger }),
      ),
    } as never,
  });
  const port = await listenHttp(edge, { host: '127.0.0.1', port: 0 });
  // The baseline: the same page size, precomputed, from a plain fastify handler on the same server factory.
  const page = await (
    await fetch(`http://127.0.0.1:${port}/discovery/v2/events.json?apikey=k&keyword=rock`)
  ).text();
  const baseline = createHttpServer({ logger });
  baseline.get('/fixed', async (_request, reply) => reply.type('application/json').send(page));
  const baselinePort = await listenHttp(baseline, { host: '127.0.0.1', port: 0 });
  process.send!({ port, baselinePort, pageBytes: page.length, timeOrigin: performance.timeOrigin });
}

async function driver(): Promise<void> {
  // The load generator reads ~30 kB answers hundreds of times a second: without this flag V8 runs a
  // major collection of its small heap for every 64 MB of answer Buffers (about once a second, 2-15
  // ms), its timers fire late and the paced clients count that delay as the service's latency. The
  // edge's runtime flags (its package.json `marquee.v8`) are that flag, for the same reason.
  const { applyV8Flags, readV8Options } = await import('@marquee/platform/v8');
  const v8Of = (service: string) =>
    readV8Options(fileURLToPath(new URL(`../../services/${service}`, import.meta.url)));
  applyV8Flags(v8Of('edge-gateway').runtimeFlags);
  // And one V8 background thread (the `discovery` script's `node --v8-pool-size=1`), as the edge and
  // catalog-indexer have: with Node's default four, each of its major collections runs four marking
  // threads, which on a machine of two cores leaves the services' requests waiting for a core
  // (docs/performance.md, "Discovery search").
  if (!process.execArgv.some((option) => option.startsWith('--v8-pool-size')))
    console.error('load generator: without --v8-pool-size=1 (use `pnpm discovery`)');
  const { default: autocannon } = await import('autocannon');
  // The catalog and edge processes run with their services' own V8 options (package.json
  // `marquee.v8`, as deployed: the node options here, the runtime flags each sets at start):
  // without them V8 runs a full marking in each about every second under this load
  // (catalog-indexer README, "V8 options").
  const catalogOptions = v8Of('catalog-indexer').nodeOptions;
  const edgeOptions = v8Of('edge-gateway').nodeOptions;
  // The edge and the catalog sign and check their gRPC calls with one key (docs/architecture.md,
  // "Service-to-service authentication"): without one in the environment each process would make
  // its own, and every call from the edge would be refused as unauthenticated.
  process.env.SERVICE_AUTH_KEY ||= randomBytes(32).toString('base64');
  const start = (args: string[]) =>
    fork(fileURLToPath(import.meta.url), args, {
      execArgv: [
        ...(args[0] === '--catalog' ? catalogOptions : edgeOptions),
        '--experimental-strip-types',
        '--disable-warning=ExperimentalWarning',
        '--expose-gc',
        ...(process.env.DISCOVERY_BENCH_TRACE_GC ? ['--trace-gc'] : []),
        ...(process.env.DISCOVERY_BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
        ...(process.env.DISCOVERY_BENCH_PROFILE
          ? ['--cpu-prof', '--cpu-prof-dir=/tmp/discprof']
          : []),
      ],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
  const answer = <T>(child: ReturnType<typeof start>) =>
    new Promise<T>((resolve, reject) => {
      child.once('message', (m) => resolve(m as T));
      child.once('exit', (code) => reject(new Error(`bench process exited with ${code}`)));
    });
  const os = await import('node:os');
  const loadBefore = os.loadavg()[0]!;
  const catalogChild = start(['--catalog']);
  const seeded = await answer<{
    grpcPort: number;
    timeOrigin: number;
    seedSeconds: number;
    indexMs: Record<string, { p50: number; p99: number }>;
    indexHeapMb: number;
    fullGcMs: number | null;
    rssMb: number;
  }>(catalogChild);
  const edgeChild = start(['--edge', String(seeded.grpcPort)]);
  const served = await answer<{
    port: number;
    baselinePort: number;
    pageBytes: number;
    timeOrigin: number;
  }>(edgeChild);
  catalogChild.send({ edgePort: served.port });
  const measured = await answer<{ visibleMs: { p50: number; p99: number; max: number } }>(
    catalogChild,
  );
  const ready = { ...seeded, ...served, ...measured };
  const edge = `http://127.0.0.1:${ready.port}/discovery/v2/events.json?apikey=k`;
  // The edge caches a rendered event-search page while the catalog has not changed (at most 1 s):
  // the scenarios below that repeat one URL measure mostly that cache. The "(uncached)" ones send a
  // different query every request — a new page, sort, centre or date range — so every request
  // searches the catalog: what a search costs when it is not popular.
  const path = (url: string) => new URL(url).pathname + new URL(url).search;
  const cycle = (paths: string[]) => {
    let n = 0;
    return () => paths[n++ % paths.length]!;
  };
  const sorts = ['', '&sort=eventDate,date.asc', '&sort=name,date.asc', '&sort=name,date.desc'];
  const keywords = [...genres, ...words].map((w) => encodeURIComponent(w.toLowerCase()));
  // 49 pages × 20 keywords × 4 sorts, the sort changing fastest: no URL comes back within a second.
  const uncachedKeyword = cycle(
    Array.from({ length: 49 }, (_, page) => page).flatMap((page) =>
      keywords.flatMap((k) =>
        sorts.map((sort) => path(`${edge}&keyword=${k}${sort}&page=${page}`)),
      ),
    ),
  );
  const jitter = random(99);
  const uncachedGeo = () => {
    const [, , , , lat, lon] = cities[Math.floor(jitter() * cities.length)]!;
    const at = `${(lat + (jitter() - 0.5) * 0.2).toFixed(5)},${(lon + (jitter() - 0.5) * 0.2).toFixed(5)}`;
    return path(`${edge}&latlong=${at}&radius=25&unit=miles`);
  };
  const uncachedDates = () => {
    const from = new Date(Date.UTC(2030, 0, 1) + Math.floor(jitter() * 640) * 86_400_000);
    const to = new Date(from.getTime() + (7 + Math.floor(jitter() * 84)) * 86_400_000);
    const iso = (d: Date) => d.toISOString().slice(0, 19) + 'Z';
    return path(`${edge}&startDateTime=${iso(from)}&endDateTime=${iso(to)}`);
  };
  // [name, url, next path (a new query every request), requests/s per connection (none: as fast
  // as the answers come, which measures capacity)]
  const scenarios: Array<[string, string, (() => string)?, number?]> = [
    ['baseline: plain fastify, fixed page', `http://127.0.0.1:${ready.baselinePort}/fixed`],
    // The floor of the real path: edge → gRPC → catalog-indexer for one event, no search.
    [
      'floor: event details by id (one event, no search)',
      `http://127.0.0.1:${ready.port}/discovery/v2/events/BENCH0000000042?apikey=k`,
    ],
    ['keyword (one word, relevance)', `${edge}&keyword=rock`],
    ['keyword (two words, date sort)', `${edge}&keyword=jazz%20festival&sort=eventDate,date.asc`],
    ['geo radius 25 miles (Chicago)', `${edge}&latlong=41.88,-87.67&radius=25&unit=miles`],
    [
      'geo radius 10 km + keyword (Berlin)',
      `${edge}&latlong=52.52,13.40&radius=10&unit=km&keyword=live`,
    ],
    [
      'date range (3 months)',
      `${edge}&startDateTime=2030-06-01T00:00:00Z&endDateTime=2030-09-01T00:00:00Z`,
    ],
    [
      'date range + name sort, page 4',
      `${edge}&startDateTime=2030-06-01T00:00:00Z&endDateTime=2030-07-01T00:00:00Z&sort=name,date.asc&page=4`,
    ],
    [
      'keyword, another page or sort every request (uncached)',
      `${edge}&keyword=rock`,
      uncachedKeyword,
    ],
    ['geo radius 25 miles, another centre every request (uncached)', `${edge}`, uncachedGeo],
    ['date range, another range every request (uncached)', `${edge}`, uncachedDates],
    // The same uncached queries from clients that keep to their API quota (bench/paced.ts): the
    // closed loops above ask as fast as answers come (each client far over its quota, which the
    // bench's key port does not enforce), so their latency is queueing at full capacity; these
    // show the latency 100 concurrent quota-keeping clients see.
    [
      `keyword, another page or sort every request (uncached), ${CLIENT_RATE} req/s per client`,
      `${edge}&keyword=rock`,
      uncachedKeyword,
      CLIENT_RATE,
    ],
    [
      `geo radius 25 miles, another centre every request (uncached), ${CLIENT_RATE} req/s per client`,
      `${edge}`,
      uncachedGeo,
      CLIENT_RATE,
    ],
    [
      `date range, another range every request (uncached), ${CLIENT_RATE} req/s per client`,
      `${edge}`,
      uncachedDates,
      CLIENT_RATE,
    ],
  ];
  // CPU time each process spent per scenario (user + system, all threads): what a request costs on
  // each side, whatever else the machine runs; the wall-clock numbers above depend on that.
  const cpuOf = (child: ReturnType<typeof start>) =>
    new Promise<number>((resolve) => {
      const onMessage = (m: unknown) => {
        if (typeof m === 'object' && m !== null && 'cpuMicros' in m) {
          child.off('message', onMessage);
          resolve((m as { cpuMicros: number }).cpuMicros);
        }
      };
      child.on('message', onMessage);
      child.send('cpu');
    });
  const summary = (result: Awaited<ReturnType<typeof autocannon>>) => ({
    requests: result.requests.total,
    requestsPerSecond: Math.round(result.requests.average),
    latencyMs: latencyMsOf(result),
    non2xx: result.non2xx,
    errors: result.errors,
  });
  const results = [];
  // DISCOVERY_BENCH_ONLY=<part of a scenario name> runs only the matching scenarios (profiling).
  const only = process.env.DISCOVERY_BENCH_ONLY;
  for (const [name, url, next, rate] of scenarios.filter(([n]) => !only || n.includes(only))) {
    // One request first (its status and total are reported); for the uncached scenarios one per
    // sort, so that building a sort order on its first use is not measured.
    const origin = new URL(url).origin;
    const probe = await fetch(next ? origin + next() : url);
    const body = (await probe.json()) as { page?: { totalElements: number } };
    if (next)
      for (let n = 0; n < 2 * sorts.length; n++) await (await fetch(origin + next())).text();
    const edgeBefore = await cpuOf(edgeChild);
    const catalogBefore = await cpuOf(catalogChild);
    const ownBefore = process.cpuUsage();
    const result =
      rate && next
        ? await runPaced({
            origin,
            clients: CONNECTIONS,
            ratePerClient: rate,
            seconds: SECONDS,
            nextPath: next,
            warmupSeconds: WARMUP_SECONDS,
          })
        : summary(
            await autocannon({
              url,
              connections: CONNECTIONS,
              duration: SECONDS,
              ...(next
                ? {
                    requests: [
                      {
                        setupRequest: (request: { path: string }) => ({
                          ...request,
                          path: next(),
                        }),
                      },
                    ],
                  }
                : {}),
            }),
          );
    const edgeCpu = (await cpuOf(edgeChild)) - edgeBefore;
    const catalogCpu = (await cpuOf(catalogChild)) - catalogBefore;
    const own = process.cpuUsage(ownBefore);
    const perRequest = (micros: number) =>
      result.requests > 0 ? round(micros / 1000 / result.requests) : null;
    // DISCOVERY_BENCH_TIMELINE=1: the paced scenarios' latency second by second (warm-up, pauses).
    const paced = 'timeline' in result ? (result as PacedResult) : undefined;
    const timeline =
      process.env.DISCOVERY_BENCH_TIMELINE && paced
        ? { timelineStartEpochMs: paced.measuredFromEpochMs, timeline: paced.timeline }
        : {};
    results.push({
      scenario: name,
      offeredRequestsPerSecond: rate ? rate * CONNECTIONS : 'as fast as answered',
      // Paced scenarios: measured after this many seconds of the same load (steady state).
      unmeasuredWarmupSeconds: rate ? WARMUP_SECONDS : 0,
      status: probe.status,
      totalElements: body.page?.totalElements ?? null,
      requestsPerSecond: result.requestsPerSecond,
      latencyMs: result.latencyMs,
      non2xx: result.non2xx,
      errors: result.errors,
      cpuMsPerRequest: {
        edge: perRequest(edgeCpu),
        catalog: name.startsWith('baseline') ? null : perRequest(catalogCpu),
        loadGenerator: perRequest(own.user + own.system),
      },
      ...timeline,
    });
  }
  // A message, not a signal: the children exit normally (and write CPU profiles when asked for).
  catalogChild.send('stop');
  edgeChild.send('stop');
  console.log(
    JSON.stringify(
      {
        benchmark: 'discovery-search',
        setup: {
          events: EVENTS,
          path: 'HTTP edge Discovery v2 routes → gRPC → catalog-indexer (in-memory read model and search index)',
          connections: CONNECTIONS,
          secondsPerScenario: SECONDS,
          pageSize: 20,
          pageBytes: ready.pageBytes,
          seedSeconds: round(ready.seedSeconds),
          indexHeapMb: round(ready.indexHeapMb),
          // Median of 5 forced full collections of the seeded catalog process.
          catalogFullGcMs: ready.fullGcMs === null ? null : round(ready.fullGcMs),
          catalogRssMb: round(ready.rssMb),
          // When each process started (epoch ms): add a --trace-gc line's "ms" to it to place the
          // collection on a paced scenario's timeline (`timelineStartEpochMs`).
          processStartEpochMs: {
            catalog: Math.round(seeded.timeOrigin),
            edge: Math.round(served.timeOrigin),
            loadGenerator: Math.round(performance.timeOrigin),
          },
          // The pid in each --trace-gc line's "[pid:…]".
          processIds: {
            catalog: catalogChild.pid,
            edge: edgeChild.pid,
            loadGenerator: process.pid,
          },
          cpus: os.cpus().length,
          // Other work on the machine skews every number: the 1-minute load average before and after.
          loadAverage: { before: round(loadBefore), after: round(os.loadavg()[0]!) },
          node: process.version,
        },
        publishToVisibleMs: {
          samples: SAMPLES,
          p50: round(ready.visibleMs.p50),
          p99: round(ready.visibleMs.p99),
          max: round(ready.visibleMs.max),
          path: 'event-changed on the in-memory bus → consumer → read model → index → GET /discovery/v2/events/{id}',
        },
        searchInProcessMs: ready.indexMs,
        results,
      },
      null,
      2,
    ),
  );
}

const edgeArg = process.argv.indexOf('--edge');
// DISCOVERY_BENCH_PROMOTED=<dir>: each service process samples, from the first measured scenario
// to the end, the allocations that outlive a young-generation collection (V8's sampling heap
// profiler without the objects scavenges free), and writes them to <dir>/<process>.heapprofile:
// what each process promotes to its old generation, where the major collections come from.
const promoted = process.env.DISCOVERY_BENCH_PROMOTED;
let promotedSession: Session | undefined;
const samplePromoted = async () => {
  if (!promoted || promotedSession) return;
  promotedSession = new Session();
  promotedSession.connect();
  await promotedSession.post('HeapProfiler.enable');
  await promotedSession.post('HeapProfiler.startSampling', {
    samplingInterval: 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: false,
  });
};
const writePromoted = async () => {
  if (!promoted || !promotedSession) return;
  const { profile } = await promotedSession.post('HeapProfiler.stopSampling');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync(promoted, { recursive: true });
  const role = process.argv.includes('--catalog') ? 'catalog' : 'edge';
  writeFileSync(`${promoted}/${role}.heapprofile`, JSON.stringify(profile));
};
process.on('message', (m) => {
  if (m === 'cpu') {
    void samplePromoted().then(() => {
      const { user, system } = process.cpuUsage();
      process.send!({ cpuMicros: user + system });
    });
  }
  if (m === 'stop') void writePromoted().then(() => process.exit(0));
});
if (process.argv.includes('--catalog')) await catalogProcess();
else if (edgeArg >= 0) await edgeProcess(Number(process.argv[edgeArg + 1]));
else await driver();
