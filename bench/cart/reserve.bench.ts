/**
 * Reserve throughput through the public API against partner-reference's own booking rate, in one
 * run on the distributed stack (every service its own process, real Kafka; stores below).
 *
 * 1. `partner`: N closed-loop clients on partner-reference's 3P API, each `POST /v1/bookings` of
 *    one general-admission ticket, then `DELETE /v1/bookings/{token}`: the partner's own hold rate.
 * 2. `edge`: N closed-loop clients on `/partners/v1/events/{id}/cart` (edge-gateway → cart →
 *    3p-connector → partner-reference): reserve one ticket (Idempotency-Key per cart), poll a 202
 *    (PENDING) to its end, then release the cart (`DELETE`). A 503 (shed) is retried with the same
 *    key after Retry-After and counted apart; so is a 504 (the edge's deadline: the reserve may
 *    still hold a cart, which the retry answers and the loop then releases).
 *
 * Both phases make one hold and one release per loop, on events of a large capacity that never sell
 * out, against the same partner-reference process (a venue the platform does not import for phase
 * 1), each after an unmeasured warm-up. The goal: the edge completes reserves at no less than half
 * the partner's own hold rate. Prints one JSON report.
 *
 * Usage: eval "$(bash deploy/local/infra.sh env)"; pnpm -s turbo run build --filter=./services/*
 *        pnpm --filter @marquee/bench cart-reserve
 * Env: CART_BENCH_CLIENTS (16), CART_BENCH_SECONDS (30, each phase), CART_BENCH_WARMUP_SECONDS (3),
 *      CART_BENCH_STORES (`mongo` default: cart, auth-gateway, 3p-connector and the other platform
 *      services on the Mongo-wire server | `memory`: every service without MONGO_URL),
 *      CART_BENCH_PARTNER_STORE (`memory` default | `mongo`; with CART_BENCH_STORES=memory always
 *      memory), CART_BENCH_PEER (`partner` default | `pretix`: a third phase after the stack is
 *      stopped, pretix's cart-position API with the same clients, then its burst; see
 *      bench/pretix/pretix-peer.ts and PRETIX_BENCH_BURST*), CART_BENCH_DEADLINE_SECONDS (900, 1800
 *      with pretix: the whole run, start-up included).
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { Pool } from 'undici';
import {
  createPartnerEvent,
  createPartnerVenue,
  grantPartnerDistribution,
  importPartnerEvent,
  partnerOriginOf,
} from '../../test/support/partner-event.ts';
import { cpuSecondsOf, infraPids, partnerAccessToken, runOnStack } from '../stack-run.ts';
import { percentile } from '../stats.ts';
import {
  burstOptionsFromEnv,
  pretixPhase,
  startPretix,
  type PretixPeer,
} from '../pretix/pretix-peer.ts';
import { closedLoop, cpuMsPerLoop, ownCpuSeconds, round } from './closed-loop.ts';
import { count, partnerCartDriver, type Tally } from './partner-cart-driver.ts';
import { oneOf, positive } from '../env.ts';

const CLIENTS = positive('CART_BENCH_CLIENTS', 16, 512);
const SECONDS = positive('CART_BENCH_SECONDS', 30, 600);
const WARMUP_SECONDS = positive('CART_BENCH_WARMUP_SECONDS', 3, 60);
const PEER = oneOf('CART_BENCH_PEER', 'partner', ['partner', 'pretix']);
const BURST = PEER === 'pretix' ? burstOptionsFromEnv() : undefined;
const DEADLINE_SECONDS = positive(
  'CART_BENCH_DEADLINE_SECONDS',
  PEER === 'pretix' ? 1_800 : 900,
  3_600,
);
const STORES = oneOf('CART_BENCH_STORES', 'mongo', ['mongo', 'memory']);
const PARTNER_STORE =
  STORES === 'memory' ? 'memory' : oneOf('CART_BENCH_PARTNER_STORE', 'memory', ['memory', 'mongo']);
/** After a phase's clock stops: how long the reserves still running may take to finish. */
const DRAIN_MS = 60_000;
/** General-admission places of each event: far more than the holds ever in flight. */
const CAPACITY = 100_000;

const brokers = process.env.KAFKA_BROKERS;
const mongoUrl = process.env.MONGO_URL;
if (!brokers || !mongoUrl) {
  console.error('cart-reserve needs KAFKA_BROKERS and MONGO_URL (deploy/local/infra.sh env)');
  process.exit(2);
}

// In-memory repositories are a development mode: the services refuse them under production. An
// empty MONGO_URL unsets it for that service.
const inMemory = { NODE_ENV: 'development', MONGO_URL: '' };
const platformServices = [
  'auth-gateway',
  'publisher',
  'catalog-indexer',
  'deals',
  '3p-connector',
  'cart',
  'secure-entry',
  'reconciler',
  'edge-gateway',
];
const serviceEnv: Record<string, Record<string, string>> = {
  'partner-reference': {
    ...(PARTNER_STORE === 'memory' ? inMemory : {}),
    PARTNER_SEED_DEMO: 'false',
  },
};
if (STORES === 'memory') for (const name of platformServices) serviceEnv[name] = { ...inMemory };

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** CPU seconds each process used so far, the load generator (this process) included. */
function cpuSeconds(pids: Map<string, number | undefined>): Map<string, number> {
  const used = cpuSecondsOf(pids);
  used.set('load generator', ownCpuSeconds());
  return used;
}

await runOnStack('cart-reserve', DEADLINE_SECONDS, async (startStack) => {
  const setupStarted = performance.now();
  // pretix first (its install and migration take minutes the first time), idle until its phase.
  let pretix: PretixPeer | undefined;
  if (BURST) pretix = await startPretix(BURST.places, 900_000);
  const sut = await startStack({ kafkaBrokers: brokers, mongoUrl, serviceEnv });
  const pids = new Map<string, number | undefined>([
    ...[...sut.services].map(([name, s]): [string, number | undefined] => [name, s.child.pid]),
    ...infraPids(),
  ]);
  const loopOptions = {
    clients: CLIENTS,
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    drainMs: DRAIN_MS,
    sampleCpu: () => cpuSeconds(pids),
  };
  const admin = { authorization: `Bearer ${sut.adminToken}`, 'content-type': 'application/json' };
  const partnerOrigin = partnerOriginOf(sut);
  const marker = `rsv${randomBytes(4).toString('hex')}`;

  const expect = async <T>(response: Response, status: number, what: string): Promise<T> => {
    const text = await response.text();
    if (response.status !== status) throw new Error(`${what}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : {}) as T;
  };

  const { apiKey, appId } = await expect<{ apiKey: string; appId: string }>(
    await fetch(`${sut.baseUrl}/admin/v1/apps`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        name: 'reserve bench',
        redirectUris: ['https://bench.example/cb'],
        // A quota no client of this run reaches: the run is about the reserve path.
        // No held-ticket quota either: one app stands for every client of the run.
        quota: { perSecond: 100_000, perDay: 100_000_000, heldTicketsPerEvent: 0 },
      }),
    }),
    201,
    'app',
  );
  await grantPartnerDistribution(sut, appId);
  // The platform imports the first venue; the second is the partner's alone (phase 1), so the
  // connector never reads its availability while the partner is measured. Each has one
  // general-admission area of CAPACITY places and one event on sale.
  const onSale = await importPartnerEvent(sut, {
    apiKey,
    marker,
    capacity: CAPACITY,
    discoveryTimeoutMs: 60_000,
    sellableTimeoutMs: 120_000,
  });
  const eventId = onSale.eventId;
  const directVenue = await createPartnerVenue(sut, {
    name: `Direct Hall ${marker}`,
    capacity: CAPACITY,
  });
  const directEventId = await createPartnerEvent(sut, directVenue, { name: `Direct ${marker}` });

  const setupSeconds = round((performance.now() - setupStarted) / 1000);

  // Phase 1: partner-reference's 3P API, as the connector calls it.
  const partnerToken = await partnerAccessToken(sut);
  const partnerAuth = { authorization: `Bearer ${partnerToken}` };
  const partnerPool = new Pool(partnerOrigin, { connections: CLIENTS });
  const partnerAnswers: Tally = {};
  const partnerReleases: Tally = {};
  const partnerExamples: Record<string, string> = {};
  let partnerErrors = 0;
  const partner = await closedLoop(async (client, iteration, rec) => {
    const sent = performance.now();
    try {
      const response = await partnerPool.request({
        path: '/v1/bookings',
        method: 'POST',
        headers: { ...partnerAuth, 'content-type': 'application/json' },
        body: JSON.stringify({
          request: {
            event_id: directEventId,
            language: 'en-us',
            channel_info: { channel_type: 'INTERNET' },
            tickets: [{ price_type_id: 'ADULT', quantity: 1, area_id: 'GA' }],
            external_reference: `${marker}-direct-${client}-${iteration}`,
          },
        }),
      });
      const text = await response.body.text();
      const done = performance.now();
      const inClock = rec.measured(sent);
      if (inClock) {
        count(partnerAnswers, response.statusCode);
        rec.reserveMs.push(done - sent);
      }
      if (response.statusCode !== 201) {
        partnerExamples[response.statusCode] ??= text.slice(0, 300);
        await delay(100);
        return;
      }
      if (rec.measured(done)) rec.heldCount += 1;
      const { booking } = JSON.parse(text) as { booking: { inventory_token: string } };
      const released = await partnerPool.request({
        path: `/v1/bookings/${encodeURIComponent(booking.inventory_token)}`,
        method: 'DELETE',
        headers: partnerAuth,
      });
      await released.body.dump();
      if (inClock) count(partnerReleases, released.statusCode);
    } catch {
      if (rec.measured(sent)) partnerErrors += 1;
      await delay(100);
    }
  }, loopOptions);
  await partnerPool.close();

  // Phase 2: the same loop through the edge's partner cart.
  const edgePool = new Pool(sut.baseUrl, { connections: CLIENTS });
  const cart = partnerCartDriver(edgePool, apiKey, eventId);
  const toHeldMs: number[] = [];
  const edge = await closedLoop(async (client, iteration, rec) => {
    const reserved = await cart.reserve(`${marker}-${client}-${iteration}`, rec);
    if (reserved.sent !== undefined && rec.measured(reserved.sent))
      rec.reserveMs.push(reserved.answered! - reserved.sent);
    if (reserved.heldAt !== undefined && rec.measured(reserved.heldAt)) {
      rec.heldCount += 1;
      toHeldMs.push(reserved.heldAt - reserved.first);
    }
    // Release, also of a reserve that failed or was left pending (idempotent).
    if (reserved.cartId) await cart.release(reserved.cartId, rec, reserved.first);
  }, loopOptions);
  await edgePool.close();
  toHeldMs.sort((a, b) => a - b);

  // Every cart was released: the partner holds nothing of the event afterwards (a release the
  // partner missed is retried by cart's sweeper, so give it a moment).
  const partnerHeld = async () => {
    const response = await fetch(
      `${sut.partner.baseUrl}/events/${onSale.partnerEventId}/availability`,
      { headers: partnerAuth },
    );
    const { areas } = await expect<{ areas: Array<{ unavailable: number }> }>(
      response,
      200,
      'partner availability',
    );
    return areas.reduce((sum, area) => sum + area.unavailable, 0);
  };
  let partnerHeldAfterRelease = await partnerHeld();
  for (let waited = 0; partnerHeldAfterRelease > 0 && waited < 20_000; waited += 1_000) {
    await delay(1_000);
    partnerHeldAfterRelease = await partnerHeld();
  }

  // pretix's phase, with the stack stopped so that its processes have the cores.
  let pretixReport: Awaited<ReturnType<typeof pretixPhase>> | undefined;
  if (pretix && BURST) {
    await sut.stop();
    const { clients, seconds, warmupSeconds, drainMs } = loopOptions;
    pretixReport = await pretixPhase(pretix, { clients, seconds, warmupSeconds, drainMs }, BURST);
    pretix.stop();
  }
  const pretixRatio =
    pretixReport && pretixReport.reservesPerSecond > 0
      ? edge.completedPerSecond / pretixReport.reservesPerSecond
      : 0;

  const ratio =
    partner.completedPerSecond > 0 ? edge.completedPerSecond / partner.completedPerSecond : 0;
  return {
    bench: 'cart reserve through the edge vs partner-reference POST /v1/bookings',
    peer: PEER,
    clients: CLIENTS,
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    stores: { platform: STORES, partnerReference: PARTNER_STORE },
    setupSeconds,
    partner: {
      holdsPerSecond: partner.completedPerSecond,
      holds: partner.completed,
      bookingLatencyMs: partner.latencyMs,
      answers: partnerAnswers,
      releases: partnerReleases,
      networkErrors: partnerErrors,
      examples: partnerExamples,
      clientsUnfinishedAfterDrain: partner.clientsUnfinishedAfterDrain,
      cpuSecondsInClock: partner.cpuSecondsInClock,
      cpuMsPerHold: cpuMsPerLoop(partner.cpuSecondsInClock, partner.completed),
    },
    edge: {
      reservesPerSecond: edge.completedPerSecond,
      reserves: edge.completed,
      reserveLatencyMs: edge.latencyMs,
      toHeldLatencyMs: {
        p50: round(percentile(toHeldMs, 50), 2),
        p99: round(percentile(toHeldMs, 99), 2),
        max: round(toHeldMs[toHeldMs.length - 1] ?? 0, 2),
      },
      answers: cart.tally.reserveAnswers,
      shed503: cart.tally.sheds,
      pendingOutcomes: cart.tally.pendingOutcomes,
      releases: cart.tally.releaseAnswers,
      networkErrors: cart.tally.networkErrors,
      examples: cart.tally.examples,
      clientsUnfinishedAfterDrain: edge.clientsUnfinishedAfterDrain,
      cpuSecondsInClock: edge.cpuSecondsInClock,
      cpuMsPerReserve: cpuMsPerLoop(edge.cpuSecondsInClock, edge.completed),
    },
    ratio: round(ratio, 3),
    goal: { ratioAtLeast: 0.5, met: ratio >= 0.5 },
    ...(pretixReport
      ? {
          pretix: pretixReport,
          edgeToPretixRatio: round(pretixRatio, 3),
          pretixGoal: { ratioAtLeast: 3, met: pretixRatio >= 3 },
        }
      : {}),
    partnerHeldAfterRelease,
    machine: {
      cpus: os.cpus().length,
      node: process.version,
      loadAverage: os.loadavg().map((l) => round(l, 2)),
    },
  };
});
