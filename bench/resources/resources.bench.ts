/**
 * Each service's memory and CPU, idle and under bounded loads, for the Helm chart's resource
 * requests (deploy/helm/marquee/values.yaml, docs/operations.md "Resource requests").
 *
 * Starts the distributed stack (`test/support/stack.ts`: every service its own process from its
 * built dist/ with its package.json's V8 options, as in a pod, on real Kafka and the Mongo-wire
 * server, databases of the run's own) and reads /proc of each service process (Linux):
 *  - idle: IDLE_SECONDS (30) with no traffic after the set-up settled: CPU (utime + stime) over the
 *    window, the highest VmRSS sampled every 500 ms;
 *  - load: LOAD_SECONDS (30) of, at once, PUBLISH_COUNT (300) events published through the edge
 *    (publisher -> event-changed -> catalog-indexer and deals), autocannon on Discovery v2 keyword
 *    searches (edge -> auth-gateway key check -> catalog-indexer), on deals searches (edge -> deals)
 *    and on the offers of an event with inventory (edge -> cart), CONNECTIONS (8) each;
 *  - purchase: PURCHASE_CLIENTS (4) closed-loop buyers on the edge's partner cart for a partner
 *    event with secure entry, until PURCHASE_SECONDS (30) have passed or PURCHASE_COUNT (200)
 *    orders are committed: reserve 2 tickets (cart -> 3p-connector -> partner-reference), then one
 *    cart in four released, the others e-ticket delivery, payment (cart's Stripe adapter against
 *    stripe-mock with STRIPE_MOCK_URL, its sandbox without) and commit (3p-connector books at
 *    partner-reference; order-confirmed -> secure-entry issues the tickets, the reconciler
 *    consumes); the order read (secure-entry binds the device), one secure render, and a gate scan
 *    of each ticket (secure-entry);
 * and, at the end, VmHWM (each process's peak since it started). Prints one JSON report.
 *   eval "$(bash deploy/local/infra.sh env)"; pnpm -s turbo run build --filter=./services/*
 *   pnpm --filter @marquee/bench resources
 * RESOURCES_DEADLINE_SECONDS (900) bounds the whole run; the stack is stopped at the end.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { decodeToken, payloadAt } from '@marquee/render-kit/format';
import { Pool } from 'undici';
import { approvedCard } from '../../test/support/cards.ts';
import { json, partnerCall, payAndCommit, type Json } from './purchase-calls.ts';
import { grantPartnerDistribution, importPartnerEvent } from '../../test/support/partner-event.ts';
import {
  count,
  partnerCartDriver,
  type CartClock,
  type Tally,
} from '../cart/partner-cart-driver.ts';
import { runOnStack } from '../stack-run.ts';
import { byProcess, measure } from '../process-use.ts';
import { positive } from '../env.ts';

const IDLE_SECONDS = positive('IDLE_SECONDS', 30, 600);
const LOAD_SECONDS = positive('LOAD_SECONDS', 30, 600);
const PUBLISH_COUNT = positive('PUBLISH_COUNT', 300, 100_000);
const CONNECTIONS = positive('CONNECTIONS', 8, 256);
const PURCHASE_SECONDS = positive('PURCHASE_SECONDS', 30, 600);
const PURCHASE_COUNT = positive('PURCHASE_COUNT', 200, 100_000);
const PURCHASE_CLIENTS = positive('PURCHASE_CLIENTS', 4, 64);
const DEADLINE_SECONDS = positive('RESOURCES_DEADLINE_SECONDS', 900, 3_600);
/** Seconds without traffic after the set-up, before the idle window. */
const SETTLE_SECONDS = 10;
/** After the purchase clock stops: how long the buyers still running may take to finish. */
const DRAIN_MS = 20_000;
/** One cart in RELEASE_EVERY is released instead of bought. */
const RELEASE_EVERY = 4;
const TICKETS_PER_CART = 2;

const brokers = process.env.KAFKA_BROKERS;
const mongoUrl = process.env.MONGO_URL;
if (!brokers || !mongoUrl) {
  console.error('resources needs KAFKA_BROKERS and MONGO_URL (deploy/local/infra.sh env)');
  process.exit(2);
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

await runOnStack('resources', DEADLINE_SECONDS, async (startStack) => {
  const setupStarted = performance.now();
  const sut = await startStack({ kafkaBrokers: brokers, mongoUrl });
  const pids = new Map([...sut.services].map(([name, s]) => [name, s.child.pid]));
  const base = sut.baseUrl;
  const admin = { authorization: `Bearer ${sut.adminToken}`, 'content-type': 'application/json' };

  const created = await fetch(`${base}/admin/v1/apps`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({
      name: 'resources bench',
      redirectUris: ['https://bench.example/cb'],
      // A quota no client of this run reaches, and no held-ticket quota (one app stands for every
      // buyer): the run is about what the services use, not the app's limits.
      quota: { perSecond: 100_000, perDay: 100_000_000, heldTicketsPerEvent: 0 },
    }),
  });
  if (created.status !== 201)
    throw new Error(`creating an app: ${created.status} ${await created.text()}`);
  const { apiKey, appId } = (await created.json()) as { apiKey: string; appId: string };
  await grantPartnerDistribution(sut, appId);

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

  // Publish a first few so the searches find something.
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

  // The purchase phase's event: a partner event with secure entry, imported by 3p-connector (it
  // also waits until discovery shows it and cart sells it), of far more places than are sold.
  const onSale = await importPartnerEvent(sut, {
    apiKey,
    marker: `${marker}p`,
    capacity: 100_000,
    secureEntry: true,
    discoveryTimeoutMs: 60_000,
    sellableTimeoutMs: 120_000,
  });
  const eventId = onSale.eventId;
  const searchable = (await (
    await fetch(`${base}/discovery/v2/events.json?keyword=${marker}&size=1&apikey=${apiKey}`)
  ).json()) as { _embedded?: { events: unknown[] } };
  if (!searchable._embedded?.events.length)
    throw new Error('the published events are not searchable');
  // Cart's read path: the offers of the partner event (it has inventory; the published ones none).
  const offers = await fetch(`${base}/commerce/v2/events/${eventId}/offers?apikey=${apiKey}`);
  if (offers.status !== 200)
    throw new Error(`the offers of ${eventId}: ${offers.status} ${await offers.text()}`);
  await offers.arrayBuffer();
  const gateCreated = await fetch(`${base}/admin/v1/gates`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ name: `Gate ${marker}`, eventId }),
  });
  if (gateCreated.status !== 201)
    throw new Error(`creating a gate: ${gateCreated.status} ${await gateCreated.text()}`);
  const { token: gateToken } = (await gateCreated.json()) as { token: string };
  const setupSeconds = round((performance.now() - setupStarted) / 1000);

  await delay(SETTLE_SECONDS * 1000);
  const idle = await measure(pids, IDLE_SECONDS, async () => {});

  const { default: autocannon } = await import('autocannon');
  const cannon = (path: string) =>
    autocannon({ url: `${base}${path}`, connections: CONNECTIONS, duration: LOAD_SECONDS });
  const requests: Record<string, { total: number; non2xx: number; rps: number }> = {};
  const load = await measure(pids, LOAD_SECONDS, async () => {
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
    const [search, deals, offered] = await Promise.all([
      cannon(`/discovery/v2/events.json?keyword=${marker}&apikey=${apiKey}`),
      cannon(
        `/dc/content/v1/deals/events?latitude=52.5&longitude=13.39&radius=50&apikey=${apiKey}`,
      ),
      cannon(`/commerce/v2/events/${eventId}/offers?apikey=${apiKey}`),
      publishing,
    ]);
    for (const [name, r] of Object.entries({ search, deals, offers: offered })) {
      requests[name] = {
        total: r.requests.total,
        non2xx: r.non2xx,
        rps: Math.round(r.requests.average),
      };
    }
  });

  // Purchases: closed-loop buyers through the edge's partner cart.
  const client = { sut, apiKey };
  const pool = new Pool(base, { connections: PURCHASE_CLIENTS });
  const cart = partnerCartDriver(pool, apiKey, eventId);
  const purchase = {
    held: 0,
    released: 0,
    orders: 0,
    orderReads: 0,
    renders: 0,
    scans: {} as Tally,
    failures: {} as Tally,
    failureExamples: {} as Record<string, string>,
  };
  const failed = (step: string, error: unknown) => {
    count(purchase.failures, step);
    purchase.failureExamples[step] ??= String(error).slice(0, 300);
  };
  const purchaseEnd = performance.now() + PURCHASE_SECONDS * 1000;
  const clock: CartClock = {
    measured: () => true,
    stopped: () => performance.now() > purchaseEnd + DRAIN_MS,
  };
  const more = () => performance.now() < purchaseEnd && purchase.orders < PURCHASE_COUNT;
  const scan = async (payload: string) => {
    const answer = await fetch(`${base}/gate/v1/scans`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ payload }),
    });
    const body = await json(answer);
    count(purchase.scans, answer.status === 200 ? String(body.result) : answer.status);
  };
  /** One buyer's order after the commit: read (device bound), rendered once, every ticket scanned. */
  const enter = async (orderToken: string, account: string) => {
    const device = `phone-${account}`;
    let read: Json | undefined;
    while (!read && !clock.stopped()) {
      const answer = await partnerCall(
        client,
        'POST',
        `/orders?order_token=${encodeURIComponent(orderToken)}`,
        {
          body: {
            device_id: device,
            device_type: 'native',
            device_os: 'ios',
            third_party_account_id: account,
          },
        },
      );
      const body = await json(answer);
      // 90010: secure-entry has not issued the tickets yet (it learns them from Kafka).
      if (answer.status === 404 && body.error?.code === '90010') await delay(200);
      else if (answer.status === 200) read = body;
      else throw new Error(`order read ${answer.status}: ${JSON.stringify(body)}`);
    }
    if (!read) return;
    purchase.orderReads += 1;
    const tickets = read.tickets as Json[];
    const [first] = tickets;
    const rendered = await fetch(`${base}/marketplace/v1/securerender`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'x-user-id': account, 'content-type': 'application/json' },
      body: JSON.stringify({
        deviceId: device,
        deviceType: 'NATIVE',
        deviceOs: 'IOS',
        userAgent: 'resources bench',
        tickets: [
          {
            eventId: first!.event_id,
            section: first!.section,
            row: first!.row,
            seat: first!.seat_name,
            barcode: first!.barcode_id,
          },
        ],
      }),
    });
    const renderedBody = await json(rendered);
    if (rendered.status !== 200)
      throw new Error(`secure render ${rendered.status}: ${JSON.stringify(renderedBody)}`);
    purchase.renders += 1;
    const tokens = [
      renderedBody.tickets[0].token as string,
      ...tickets.slice(1).map((t) => t.secure_entry_data.token as string),
    ];
    for (const token of tokens) await scan(payloadAt(decodeToken(token), Date.now()));
  };
  const purchased = await measure(pids, 1, async () => {
    await Promise.all(
      Array.from({ length: PURCHASE_CLIENTS }, async (_, buyer) => {
        for (let iteration = 0; more(); iteration++) {
          const account = `${marker}-fan-${buyer}-${iteration}`;
          const reserved = await cart.reserve(`${account}-reserve`, clock, [
            { id: 'ADULT', quantity: TICKETS_PER_CART },
          ]);
          if (reserved.heldAt === undefined) {
            if (reserved.cartId) await cart.release(reserved.cartId, clock, reserved.first);
            continue;
          }
          purchase.held += 1;
          const cartId = reserved.cartId!;
          if (purchase.held % RELEASE_EVERY === 0) {
            await cart.release(cartId, clock, reserved.first);
            purchase.released += 1;
            continue;
          }
          let orderToken: string;
          try {
            const order = await payAndCommit(client, eventId, {
              cartId,
              currency: 'EUR',
              card: approvedCard('/partners/v1'),
              account,
            });
            orderToken = order.order_token as string;
            purchase.orders += 1;
          } catch (error) {
            failed('pay and commit', error);
            await cart.release(cartId, clock, reserved.first);
            continue;
          }
          try {
            await enter(orderToken, account);
          } catch (error) {
            failed('order read, render, scan', error);
          }
        }
      }),
    );
  });
  await pool.close();

  const services = byProcess(pids, { idle, load, purchase: purchased });
  return {
    measured: 'per-process CPU (/proc/<pid>/stat utime+stime) and memory (/proc/<pid>/status)',
    setupSeconds,
    idleSeconds: idle.seconds,
    loadSeconds: load.seconds,
    published: { ok: published, failed: publishFailures },
    requests,
    purchase: {
      seconds: purchased.seconds,
      clients: PURCHASE_CLIENTS,
      ticketsPerCart: TICKETS_PER_CART,
      payments: process.env.STRIPE_MOCK_URL ? 'stripe adapter on stripe-mock' : 'sandbox',
      ...purchase,
      ordersPerSecond: round(purchase.orders / purchased.seconds, 2),
      reserveAnswers: cart.tally.reserveAnswers,
      pendingOutcomes: cart.tally.pendingOutcomes,
      releaseAnswers: cart.tally.releaseAnswers,
      shed503: cart.tally.sheds,
      networkErrors: cart.tally.networkErrors,
      examples: cart.tally.examples,
    },
    services,
    machine: {
      cpus: os.cpus().length,
      node: process.version,
      loadAverage: os.loadavg().map((l) => round(l, 2)),
    },
  };
});
