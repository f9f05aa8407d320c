/**
 * Each service's memory and CPU, idle and under a bounded load, for the Helm chart's resource
 * requests (deploy/helm/marquee/values.yaml, docs/operations.md "Resource requests").
 *
 * Measures the local stack of `deploy/local/stack.sh` (every service as its own process, as in a
 * pod), which must be running: it reads the pids from `$MARQUEE_STATE/stack/pids` and /proc of
 * each process (Linux):
 *  - idle: IDLE_SECONDS (30) with no traffic after the stack settled: CPU (utime + stime) over the
 *    window, resident memory (VmRSS) at its end;
 *  - load: LOAD_SECONDS (30) of, at once, PUBLISH_COUNT (300) events published through the edge
 *    (publisher -> event-changed -> catalog-indexer and deals), autocannon on Discovery v2 keyword
 *    searches (edge -> auth-gateway key check -> catalog-indexer), on deals searches (edge ->
 *    deals) and on the offers of an event with inventory (edge -> cart), CONNECTIONS (8) each: CPU over the window, the highest VmRSS sampled every 500 ms,
 *    and VmHWM (the peak since the process started).
 * Needs an app quota above the default 5 requests a second: start the stack with
 * `DEFAULT_QUOTA_PER_SECOND=100000 DEFAULT_QUOTA_PER_DAY=100000000`. Prints one JSON report.
 *   MARQUEE_STATE=/tmp/m DEFAULT_QUOTA_PER_SECOND=100000 DEFAULT_QUOTA_PER_DAY=100000000 \
 *     bash deploy/local/stack.sh start
 *   MARQUEE_STATE=/tmp/m pnpm --filter @marquee/bench resources
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const state = process.env.MARQUEE_STATE ?? join(homedir(), '.local/state/marquee');
const stackDir = join(state, 'stack');
const base = process.env.MARQUEE_BASE_URL ?? 'http://127.0.0.1:8080';
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 30);
const LOAD_SECONDS = Number(process.env.LOAD_SECONDS ?? 30);
const PUBLISH_COUNT = Number(process.env.PUBLISH_COUNT ?? 300);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 8);
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

const pids = new Map<string, number>();
for (const name of readdirSync(join(stackDir, 'pids'))) {
  const pid = Number(readFileSync(join(stackDir, 'pids', name), 'utf8').trim());
  if (existsSync(`/proc/${pid}`)) pids.set(name, pid);
}
if (pids.size === 0) throw new Error(`no running service in ${stackDir}/pids: start the stack`);

const cpuTicks = (pid: number): number => {
  // Fields after the command name "(...)": state is field 3, utime 14, stime 15.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
};
const memoryMiB = (pid: number, field: 'VmRSS' | 'VmHWM'): number => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Math.round(Number(line?.split(/\s+/)[1] ?? 0) / 1024);
};

interface Window {
  cpuMillicores: Record<string, number>;
  rssMiB: Record<string, number>;
}
/** CPU of each process over `seconds` while `work` runs, and its highest RSS sampled meanwhile. */
async function measure(seconds: number, work: () => Promise<unknown>): Promise<Window> {
  const before = new Map([...pids].map(([name, pid]) => [name, cpuTicks(pid)]));
  const peak = new Map([...pids].map(([name, pid]) => [name, memoryMiB(pid, 'VmRSS')]));
  const started = process.hrtime.bigint();
  const sampler = setInterval(() => {
    for (const [name, pid] of pids)
      peak.set(name, Math.max(peak.get(name)!, memoryMiB(pid, 'VmRSS')));
  }, 500);
  await Promise.all([work(), new Promise((resolve) => setTimeout(resolve, seconds * 1000))]);
  clearInterval(sampler);
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuMillicores: Record<string, number> = {};
  const rssMiB: Record<string, number> = {};
  for (const [name, pid] of pids) {
    const ticks = cpuTicks(pid) - before.get(name)!;
    cpuMillicores[name] = Math.round(((ticks / TICKS_PER_SECOND) * 1000) / elapsed);
    rssMiB[name] = peak.get(name)!;
  }
  return { cpuMillicores, rssMiB };
}

const adminToken = readFileSync(join(stackDir, 'admin-token'), 'utf8').trim();
const created = await fetch(`${base}/admin/v1/apps`, {
  method: 'POST',
  headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'resources bench', redirectUris: ['https://bench.example/cb'] }),
});
if (created.status !== 201)
  throw new Error(`creating an app: ${created.status} ${await created.text()}`);
const { apiKey } = (await created.json()) as { apiKey: string };

const marker = `res${randomBytes(4).toString('hex')}`;
const anEvent = (i: number) => ({
  source: { id: 'resources-bench', name: 'Resources_Bench' },
  version: 1,
  active: true,
  url: `https://publisher.example/${marker}/${i}`,
  names: { 'en-us': `Resources ${marker} Night ${i}` },
  attractions: [{ source: { id: `band-${marker}-${i % 20}`, name: 'Resources_Bench' } }],
  classifications: [
    { primary: true, segment: { id: 'KZFzniwnSyZfZ7v7nJ', names: { 'en-us': 'Music' } } },
  ],
  dates: {
    start: { localDate: '2031-07-04', localTime: '20:00:00', dateTime: '2031-07-04T18:00:00Z' },
    timezone: 'Europe/Berlin',
  },
  place: {
    names: { 'en-us': `Hall ${marker} ${i % 10}` },
    address: { line1s: { 'en-us': 'Columbiadamm 13-21' } },
    city: { names: { 'en-us': 'Berlin' } },
    country: { countryCode: 'DE', names: { 'en-us': 'Germany' } },
    location: { latitude: 52.4848 + (i % 10) / 100, longitude: 13.3907 },
    postalCode: '10965',
  },
  priceRanges: { type: 'standard', currency: 'EUR', min: 30, max: 80 },
});

// Publish a first few so the searches find something, then settle before the idle window.
let published = 0;
let publishFailures = 0;
const publish = async (i: number) => {
  const response = await fetch(`${base}/publish/v2/events?apikey=${apiKey}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(anEvent(i)),
  });
  await response.arrayBuffer();
  if (response.status === 200) published += 1;
  else publishFailures += 1;
};
for (let i = 0; i < 10; i++) await publish(i);
await new Promise((resolve) => setTimeout(resolve, 10_000));
const searchable = (await (
  await fetch(`${base}/discovery/v2/events.json?keyword=${marker}&size=1&apikey=${apiKey}`)
).json()) as { _embedded?: { events: unknown[] } };
if (!searchable._embedded?.events.length)
  throw new Error('the published events are not searchable after 10 s');
// Cart's read path: the offers of an event with inventory (the published ones have none; the
// stack's seeded events have), found among the first 50 the catalog lists.
const listed = (await (
  await fetch(`${base}/discovery/v2/events.json?size=50&apikey=${apiKey}`)
).json()) as { _embedded?: { events: Array<{ id: string }> } };
let eventId: string | undefined;
for (const { id } of listed._embedded?.events ?? []) {
  const response = await fetch(`${base}/commerce/v2/events/${id}/offers?apikey=${apiKey}`);
  await response.arrayBuffer();
  if (response.status === 200) {
    eventId = id;
    break;
  }
}
if (!eventId) throw new Error('no listed event has offers: cart would only answer 404');

const idle = await measure(IDLE_SECONDS, async () => {});

const { default: autocannon } = await import('autocannon');
const cannon = (path: string) =>
  autocannon({ url: `${base}${path}`, connections: CONNECTIONS, duration: LOAD_SECONDS });
const requests: Record<string, { total: number; non2xx: number; rps: number }> = {};
const load = await measure(LOAD_SECONDS, async () => {
  const publishing = (async () => {
    // PUBLISH_COUNT events, 4 at a time, within the window.
    const deadline = Date.now() + LOAD_SECONDS * 1000;
    let next = 10;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < PUBLISH_COUNT + 10 && Date.now() < deadline) await publish(next++);
      }),
    );
  })();
  const [search, deals, offers] = await Promise.all([
    cannon(`/discovery/v2/events.json?keyword=${marker}&apikey=${apiKey}`),
    cannon(`/dc/content/v1/deals/events?latitude=52.5&longitude=13.39&radius=50&apikey=${apiKey}`),
    cannon(`/commerce/v2/events/${eventId}/offers?apikey=${apiKey}`),
    publishing,
  ]);
  for (const [name, r] of Object.entries({ search, deals, offers })) {
    requests[name] = {
      total: r.requests.total,
      non2xx: r.non2xx,
      rps: Math.round(r.requests.average),
    };
  }
});

const services = Object.fromEntries(
  [...pids.keys()].sort().map((name) => [
    name,
    {
      idleCpuMillicores: idle.cpuMillicores[name],
      idleRssMiB: idle.rssMiB[name],
      loadCpuMillicores: load.cpuMillicores[name],
      loadPeakRssMiB: load.rssMiB[name],
      vmHwmMiB: memoryMiB(pids.get(name)!, 'VmHWM'),
    },
  ]),
);
console.log(
  JSON.stringify(
    {
      measured: 'per-process CPU (/proc/<pid>/stat utime+stime) and memory (/proc/<pid>/status)',
      idleSeconds: IDLE_SECONDS,
      loadSeconds: LOAD_SECONDS,
      published: { ok: published, failed: publishFailures },
      requests,
      services,
    },
    null,
    2,
  ),
);
