/**
 * Deals search benchmark: 100,000 events and 20,000 deals in a running deals service,
 * searched through the edge's deals routes (`GET /dc/content/v1/deals/events`) with autocannon.
 *
 * Two processes, so the load generator never shares an event loop with what it measures:
 *  - the child ("server") hosts deals (in-memory repositories, in-memory event bus: the embedded
 *    default's adapters) and the edge's HTTP surface wired to it over real gRPC, with an API-key
 *    port that accepts every key (auth-gateway's per-app quota of 5 requests/s would be measured
 *    otherwise). It seeds the events through `event-changed` on the bus, exactly as the publisher
 *    feeds them, and the deals through DealsService.CreateDeal, then reports its ports.
 *  - the parent drives one autocannon run per query shape and prints one JSON report.
 *
 * Usage: pnpm --filter @marquee/bench deals   (after `pnpm -s turbo run build --filter=@marquee/bench...`)
 * Env: DEALS_BENCH_EVENTS (100000), DEALS_BENCH_DEALS (20000), DEALS_BENCH_SECONDS (8 per scenario),
 *      DEALS_BENCH_CONNECTIONS (16).
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { random } from '../random.ts';
import { latencyMsOf } from '../stats.ts';

const EVENTS = Number(process.env.DEALS_BENCH_EVENTS ?? 100_000);
const DEALS = Number(process.env.DEALS_BENCH_DEALS ?? 20_000);
const SECONDS = Number(process.env.DEALS_BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.DEALS_BENCH_CONNECTIONS ?? 16);

/** US cities with their market ids (deals' market table, markets.ts) and coordinates. */
const cities = [
  ['New York', 'NY', 35, 40.7505, -73.9934],
  ['Los Angeles', 'CA', 27, 34.043, -118.2673],
  ['Chicago', 'IL', 3, 41.8807, -87.6742],
  ['Houston', 'TX', 22, 29.6847, -95.4107],
  ['Phoenix', 'AZ', 36, 33.4457, -112.0712],
  ['Philadelphia', 'PA', 18, 39.9012, -75.172],
  ['San Antonio', 'TX', 40, 29.427, -98.4375],
  ['San Diego', 'CA', 20, 32.7076, -117.157],
  ['Dallas', 'TX', 5, 32.7905, -96.8103],
  ['Denver', 'CO', 6, 39.7487, -105.0077],
  ['Boston', 'MA', 11, 42.3662, -71.0621],
  ['Seattle', 'WA', 42, 47.6221, -122.354],
  ['Atlanta', 'GA', 10, 33.7573, -84.3963],
  ['Miami', 'FL', 15, 25.7814, -80.187],
  ['Minneapolis', 'MN', 16, 44.9795, -93.2761],
  ['Detroit', 'MI', 7, 42.3411, -83.0553],
  ['Nashville', 'TN', 31, 36.1592, -86.7785],
  ['Las Vegas', 'NV', 14, 36.1029, -115.1784],
  ['Portland', 'OR', 37, 45.5316, -122.6668],
  ['Charlotte', 'NC', 2, 35.2251, -80.8392],
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

async function server(): Promise<void> {
  const { createMemoryBus } = await import('@marquee/platform/bus');
  const { createLogger } = await import('@marquee/platform/logger');
  const { hostService } = await import('@marquee/platform/service');
  const { createHttpServer, listenHttp } = await import('@marquee/platform/http');
  const { callUnary, createGrpcClient } = await import('@marquee/platform/grpc');
  const { catalogV1, dealsV1, eventChangedTopic } = await import('@marquee/proto');
  const { dealsService } = await import('@marquee/deals');
  const { createDealsClient, registerEdgeRoutes } = await import('@marquee/edge-gateway');

  const logger = createLogger({ service: 'deals-bench', level: 'warn' });
  const bus = createMemoryBus({ source: 'marquee/bench' });
  const infra = { name: 'deals', logger, bus, mongo: undefined };
  const config = dealsService.loadConfig({ LOG_LEVEL: 'warn' });
  const hosted = await hostService(infra, await dealsService.compose(infra, config), {
    host: '127.0.0.1',
    httpPort: 0,
    grpcPort: 0,
    callers: dealsService.callers!,
  });
  await bus.start();

  const seedStarted = performance.now();
  const next = random(42);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const ids: string[] = [];
  const start = Date.UTC(2030, 0, 1);
  for (let batch = 0; batch < EVENTS; batch += 1000) {
    const records = [];
    for (let i = batch; i < Math.min(EVENTS, batch + 1000); i++) {
      const [city, state, market, lat, lon] = pick(cities);
      const id = `BENCH${String(i).padStart(10, '0')}`;
      ids.push(id);
      const genre = pick(genres);
      const event = catalogV1.Event.fromPartial({
        id,
        version: 1,
        active: true,
        url: `https://tickets.example.com/${id}`,
        names: { values: { 'en-us': `${genre} night ${i}` } },
        attractions: [
          {
            ref: { $case: 'id', value: `A${Math.floor(next() * 10_000)}` },
            names: { values: { 'en-us': 'Performer' } },
          },
        ],
        classifications: [
          { primary: true, genre: { id: genre, names: { values: { 'en-us': genre } } } },
        ],
        dates: {
          start: { dateTime: new Date(start + Math.floor(next() * 730) * 86_400_000 + 72_000_000) },
        },
        location: {
          $case: 'place',
          value: {
            names: { values: { 'en-us': `${city} venue ${i % 100}` } },
            cityNames: { values: { 'en-us': city } },
            state: { stateCode: state },
            country: { countryCode: 'US' },
            location: {
              latitude: lat + (next() - 0.5) * 0.4,
              longitude: lon + (next() - 0.5) * 0.4,
            },
          },
        },
        priceRanges: [
          {
            type: catalogV1.PriceRangeType.PRICE_RANGE_TYPE_STANDARD,
            min: { amountMinor: 2000, currency: 'USD' },
            max: { amountMinor: 15000, currency: 'USD' },
          },
        ],
        marketIds: [market],
      });
      records.push({ key: id, value: { event, changedAt: new Date() } });
    }
    await bus.publish(eventChangedTopic, records);
  }

  // Deals through the service's own API; one on every (EVENTS / DEALS)-th event. A deal on an event
  // the consumer has not projected yet is NOT_FOUND: retry until the projection caught up.
  const client = createGrpcClient(dealsV1.DealsServiceClient, `127.0.0.1:${hosted.grpcPort}`, {
    deadlineMs: 60_000,
    caller: 'edge-gateway',
  });
  const step = Math.max(1, Math.floor(EVENTS / DEALS));
  const dealIds: string[] = [];
  const create = async (eventId: string, n: number) => {
    for (;;) {
      try {
        const { deal } = await callUnary(client, 'createDeal', {
          eventId,
          name: `Deal ${n}`,
          description: 'Two for one',
          offerCode: n % 2 ? `CODE${n}` : '',
          exclusivity:
            n % 3
              ? dealsV1.Exclusivity.EXCLUSIVITY_NONEXCLUSIVE
              : dealsV1.Exclusivity.EXCLUSIVITY_EXCLUSIVE,
        });
        dealIds.push(deal!.id);
        return;
      } catch (error) {
        // not_found: not projected yet; the others: the process is busy projecting (2 cores).
        const kind = (error as { kind?: string }).kind;
        if (!['not_found', 'deadline_exceeded', 'unavailable'].includes(kind ?? '')) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  };
  // The last events first: once those are projected, the memory bus has delivered the rest.
  const targets = Array.from(
    { length: DEALS },
    (_, n) => ids[(EVENTS - 1 - n * step + EVENTS) % EVENTS]!,
  );
  await create(targets[0]!, 0);
  for (let n = 1; n < targets.length; n += 16) {
    await Promise.all(targets.slice(n, n + 16).map((eventId, k) => create(eventId, n + k)));
  }
  // Measure the steady state: wait until the outbox relay has published every deal-changed.
  while (bus.records('deal-changed').length < dealIds.length)
    await new Promise((resolve) => setTimeout(resolve, 100));
  const seedSeconds = (performance.now() - seedStarted) / 1000;

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
      deals: createDealsClient(`127.0.0.1:${hosted.grpcPort}`, { deadlineMs: 10_000, logger }),
    } as never,
  });
  const port = await listenHttp(edge, { host: '127.0.0.1', port: 0 });
  // Exit normally on SIGTERM, so --cpu-prof (DEALS_BENCH_CPU_PROF) can write its profile.
  process.once('SIGTERM', () => process.exit(0));
  // The driver asks for this process's CPU time around each scenario: CPU per request is the
  // number that stays meaningful when other work shares the machine.
  process.on('message', (message) => {
    if (message === 'cpu') process.send!({ cpu: process.cpuUsage() });
  });
  process.send!({
    port,
    seedSeconds,
    dealIds: dealIds.slice(0, 100),
    memoryMb: Math.round(process.memoryUsage().rss / 1e6),
  });
}

async function driver(): Promise<void> {
  const { default: autocannon } = await import('autocannon');
  const child = fork(fileURLToPath(import.meta.url), ['--server'], {
    execArgv: process.env.DEALS_BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir=results'] : [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<{
    port: number;
    seedSeconds: number;
    dealIds: string[];
    memoryMb: number;
  }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as never));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const base = `http://127.0.0.1:${ready.port}/dc/content/v1`;
  const scenarios: Array<[string, string]> = [
    ['defaults (country US, 25 rows)', '/deals/events?apikey=k'],
    ['marketIds=35', '/deals/events?apikey=k&marketIds=35'],
    [
      'geo 25 miles around Chicago',
      '/deals/events?apikey=k&latitude=41.88&longitude=-87.67&radius=25&radiusUnit=miles',
    ],
    [
      'majorGenreId + time range',
      `/deals/events?apikey=k&majorGenreId=GENRE&timeRangeStart=2030-06-01T00:00:00Z&timeRangeEnd=2030-09-01T00:00:00Z`,
    ],
    ['rows=500', '/deals/events?apikey=k&rows=500'],
    ['city + EXCLUSIVE', '/deals/events?apikey=k&city=Boston&exclusivities=EXCLUSIVE'],
    ['/deals/{deal}/events', `/deals/${ready.dealIds[0]}/events?apikey=k`],
  ];
  // The public number of genre "Rock" (the deals service's id mapping), read from a live answer.
  const sample = (await (await fetch(`${base}/deals/events?apikey=k&rows=500`)).json()) as {
    totalHits: number;
    events: Array<{ categorization: { majorGenres: Array<{ name: string; id: number }> } }>;
  };
  const serverCpuMs = () =>
    new Promise<number>((resolve) => {
      child.once('message', (m) => {
        const { cpu } = m as { cpu: NodeJS.CpuUsage };
        resolve((cpu.user + cpu.system) / 1000);
      });
      child.send('cpu');
    });
  const rock = sample.events
    .flatMap((e) => e.categorization.majorGenres)
    .find((g) => g.name === 'Rock');
  const results = [];
  for (const [name, path] of scenarios) {
    const url = `${base}${path.replace('GENRE', String(rock?.id ?? 1))}`;
    const probe = await fetch(url);
    const body = probe.status === 200 ? ((await probe.json()) as { totalHits: number }) : undefined;
    const cpuBefore = await serverCpuMs();
    const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS });
    const cpuUsed = (await serverCpuMs()) - cpuBefore;
    results.push({
      scenario: name,
      status: probe.status,
      totalHits: body?.totalHits ?? 0,
      requestsPerSecond: Math.round(result.requests.average),
      // Edge + gRPC + deals CPU per request in the server process (one core serves ~1000/this).
      serverCpuMsPerRequest: Math.round((cpuUsed / Math.max(1, result.requests.total)) * 100) / 100,
      latencyMs: latencyMsOf(result),
      non2xx: result.non2xx,
      errors: result.errors,
    });
  }
  child.kill('SIGTERM');
  console.log(
    JSON.stringify(
      {
        benchmark: 'deals-search',
        setup: {
          events: EVENTS,
          deals: DEALS,
          eventsWithDeals: sample.totalHits,
          path: 'HTTP edge deals routes → gRPC → deals (in-memory repositories, in-memory index)',
          connections: CONNECTIONS,
          secondsPerScenario: SECONDS,
          seedSeconds: Math.round(ready.seedSeconds * 10) / 10,
          serverRssMb: ready.memoryMb,
          cpus: (await import('node:os')).cpus().length,
          // Other work on the machine during the run skews every number: reported, not hidden.
          loadAverage1mAtEnd: Math.round((await import('node:os')).loadavg()[0]! * 10) / 10,
          node: process.version,
        },
        results,
      },
      null,
      2,
    ),
  );
}

if (process.argv.includes('--server')) await server();
else await driver();
