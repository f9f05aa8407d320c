import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryBus } from '../../src/bus/memory-bus.js';
import { createLogger } from '../../src/logger/index.js';
import { metrics, startMetricsServer, type MetricsServer } from '../../src/metrics/index.js';
import { hostService, type HostedService } from '../../src/service/host.js';

const logger = createLogger({ service: 'metrics-test', level: 'silent' });

describe('metrics', () => {
  let server: MetricsServer;
  let hosted: HostedService;
  const bus = createMemoryBus({ source: '//metrics-test' });

  beforeAll(async () => {
    server = await startMetricsServer({ host: '127.0.0.1', port: 0 });
    await bus.start();
    hosted = await hostService(
      { name: 'metrics-test', logger, bus, mongo: undefined },
      {
        http: (app) => {
          app.get('/things/:id', async () => ({ ok: true }));
        },
      },
      { host: '127.0.0.1', httpPort: 0, grpcPort: 0, uses: { bus: false, mongo: false } },
    );
  });

  afterAll(async () => {
    await hosted?.stop();
    await bus.close();
    await server?.close();
  });

  const scrape = async (path = '/metrics') => {
    const response = await fetch(`http://127.0.0.1:${server.port}${path}`);
    return {
      status: response.status,
      text: await response.text(),
      type: response.headers.get('content-type'),
    };
  };

  /** The value of one series in a scrape, or undefined when it is absent. */
  const valueOf = (text: string, series: string): number | undefined => {
    const line = text.split('\n').find((each) => each.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1).split(' ')[0]);
  };

  it('serves the Prometheus text format on its own port, and 404 elsewhere on it', async () => {
    const scraped = await scrape();
    expect(scraped.status).toBe(200);
    expect(scraped.type).toMatch(/^text\/plain/);
    expect(scraped.text).toMatch(/^# HELP v8js_memory_heap_used_bytes /m);
    expect(valueOf(scraped.text, 'v8js_memory_heap_used_bytes')).toBeGreaterThan(0);
    expect(scraped.text).toMatch(/^nodejs_eventloop_delay_p99_seconds \d/m);
    expect(scraped.text).toMatch(/^process_resident_memory_bytes \d/m);
    expect((await scrape('/')).status).toBe(404);
    expect((await scrape('/metricsx')).status).toBe(404);
  });

  it('is never served on the public API port', async () => {
    const response = await hosted.http.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(404);
  });

  it('records HTTP request durations by route template, not by path', async () => {
    for (const id of ['a', 'b', 'c'])
      expect((await hosted.http.inject({ method: 'GET', url: `/things/${id}` })).statusCode).toBe(
        200,
      );
    const { text } = await scrape();
    const series =
      'http_server_request_duration_seconds_count{service="metrics-test",http_request_method="GET",http_response_status_code="200",http_route="/things/:id"}';
    expect(valueOf(text, series)).toBe(3);
    expect(text).not.toMatch(/\/things\/a/);
    expect(text).toMatch(/^# TYPE http_server_request_duration_seconds histogram$/m);
  });

  it('moves a business counter of the platform API, one series per attribute set', async () => {
    const reserves = metrics.counter('marquee_test_reserves', {
      description: 'Reserves by outcome',
    });
    const series = 'marquee_test_reserves_total{outcome="held"}';
    const before = valueOf((await scrape()).text, series) ?? 0;
    reserves.add(1, { outcome: 'held' });
    reserves.add(2, { outcome: 'held' });
    metrics.counter('marquee_test_reserves', { description: 'Reserves by outcome' }).add(1, {
      outcome: 'sold_out',
    });
    const { text } = await scrape();
    expect(valueOf(text, series)).toBe(before + 3);
    expect(valueOf(text, 'marquee_test_reserves_total{outcome="sold_out"}')).toBe(1);
  });

  it('reads a gauge at each scrape until it is stopped, then keeps its last value', async () => {
    let backlog = 4;
    const stop = metrics.gauge('marquee_test_backlog', { description: 'A backlog' }, () => [
      { value: backlog, attributes: { service: 'metrics-test' } },
    ]);
    expect(valueOf((await scrape()).text, 'marquee_test_backlog{service="metrics-test"}')).toBe(4);
    backlog = 7;
    expect(valueOf((await scrape()).text, 'marquee_test_backlog{service="metrics-test"}')).toBe(7);
    stop();
    backlog = 9;
    expect(valueOf((await scrape()).text, 'marquee_test_backlog{service="metrics-test"}')).toBe(7);
  });

  it('reads 0 for a series its gauge stops reporting, and its value again if it comes back', async () => {
    let queues: Array<{ value: number; attributes: { event_id: string } }> = [
      { value: 40, attributes: { event_id: 'e1' } },
      { value: 7, attributes: { event_id: 'e2' } },
    ];
    const stop = metrics.gauge(
      'marquee_test_waiting',
      { description: 'Fans waiting' },
      () => queues,
    );
    const read = async (id: string) =>
      valueOf((await scrape()).text, `marquee_test_waiting{event_id="${id}"}`);
    expect(await read('e1')).toBe(40);
    queues = [{ value: 8, attributes: { event_id: 'e2' } }];
    expect(await read('e1')).toBe(0);
    expect(await read('e2')).toBe(8);
    // Still 0 at later scrapes (the SDK keeps the 0), and its value once it is reported again.
    expect(await read('e1')).toBe(0);
    queues = [{ value: 12, attributes: { event_id: 'e1' } }];
    expect(await read('e1')).toBe(12);
    expect(await read('e2')).toBe(0);
    stop();
  });
});
