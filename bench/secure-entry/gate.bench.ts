import { DEVELOPMENT_CONTACT_KEYS, sealOrderContact } from '@marquee/proto/order-contact';
/**
 * Gate validation benchmark: scans per second and latency through the gate API
 * (`POST /gate/v1/scans`) of the edge, over real gRPC to secure-entry.
 *
 * Two processes, so the load generator never shares an event loop with what it measures:
 *  - the child ("server") hosts secure-entry (in-memory repositories and bus: the embedded
 *    default's adapters) and the edge's HTTP surface wired to it over gRPC. It issues TICKETS
 *    tickets by publishing `order-confirmed` records on the bus, reads every order once (binding a
 *    device and getting the tokens), registers a gate, and sends the tokens and the gate token.
 *  - the parent turns every token into the payload of the current 15-second step (the render kit's
 *    `payloadAt`, exactly what the barcode shows) and drives two bounded autocannon runs:
 *    `admit` (every request a ticket not yet admitted: the write path, one admission each) and
 *    `replay` (the same payloads again: refused as REPLAYED, a read and a refusal record each).
 *
 * Usage: pnpm --filter @marquee/bench gate   (after `pnpm -s turbo run build --filter=@marquee/bench...`)
 * Env: GATE_BENCH_TICKETS (20000), GATE_BENCH_CONNECTIONS (16).
 */
import { fork } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { latencyMsOf } from '../stats.ts';

const TICKETS = Number(process.env.GATE_BENCH_TICKETS ?? 20_000);
const CONNECTIONS = Number(process.env.GATE_BENCH_CONNECTIONS ?? 16);
const SEATS_PER_ORDER = 10;
const EVENT_ID = 'EvGateBench0001';

async function server(): Promise<void> {
  const { createMemoryBus } = await import('@marquee/platform/bus');
  const { createLogger } = await import('@marquee/platform/logger');
  const { hostService } = await import('@marquee/platform/service');
  const { createHttpServer, listenHttp } = await import('@marquee/platform/http');
  const { callUnary, createGrpcClient } = await import('@marquee/platform/grpc');
  const { entryV1 } = await import('@marquee/proto');
  const { orderConfirmedTopic } = await import('@marquee/proto/topics');
  const { secureEntryService } = await import('@marquee/secure-entry');
  const { createSecureEntryClient, registerEdgeRoutes } = await import('@marquee/edge-gateway');

  const logger = createLogger({ service: 'gate-bench', level: 'warn' });
  const bus = createMemoryBus({ source: 'marquee/bench' });
  const infra = { name: 'secure-entry', logger, bus, mongo: undefined };
  const config = secureEntryService.loadConfig({
    LOG_LEVEL: 'warn',
    SECURE_ENTRY_TOKEN_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    SECURE_ENTRY_SECRET_KEY: randomBytes(32).toString('base64'),
  });
  const hosted = await hostService(infra, await secureEntryService.compose(infra, config), {
    host: '127.0.0.1',
    httpPort: 0,
    grpcPort: 0,
    callers: secureEntryService.callers!,
  });
  await bus.start();
  const address = `127.0.0.1:${hosted.grpcPort}`;
  const admin = createGrpcClient(entryV1.SecureEntryServiceClient, address, {
    caller: 'edge-gateway',
    deadlineMs: 30_000,
  });

  const orders: { orderToken: string; orderId: string }[] = [];
  for (let i = 0; i * SEATS_PER_ORDER < TICKETS; i += 1) {
    const orderToken = randomBytes(24).toString('base64url');
    const orderId = `bench-${i}`;
    orders.push({ orderToken, orderId });
    await bus.publish(orderConfirmedTopic, [
      {
        key: orderId,
        value: {
          orderId,
          cartId: `cart-${i}`,
          eventId: EVENT_ID,
          partnerId: 'prt-bench',
          inventoryToken: '',
          inventoryOrderId: '',
          appId: 'app-bench',
          tickets: Array.from({ length: SEATS_PER_ORDER }, (_, s) => ({
            ticketId: `PT-${i}-${s}`,
            seat: String(s + 1),
            item: {
              areaId: 'A',
              section: String(100 + (i % 50)),
              row: String(1 + (i % 30)),
              seats: [String(s + 1)],
              priceLevelId: '',
              priceTypeId: '',
              quantity: 1,
              unitPrice: { amountMinor: 5000, currency: 'USD' },
              inventoryType: 'INVENTORY_TYPE_PRIMARY' as never,
            },
          })),
          ticketsAmount: undefined,
          fees: undefined,
          taxes: undefined,
          delivery: undefined,
          grandTotal: undefined,
          paymentMethod: 'PAYMENT_METHOD_TYPE_CARD' as never,
          deliveryMethod: 'DELIVERY_METHOD_TYPE_UNSPECIFIED' as never,
          secureEntryEnabled: true,
          confirmedAt: new Date(),
          orderTokenSha256: createHash('sha256').update(orderToken).digest('hex'),
          thirdPartyAccountId: '',
          customerEmail: '',
          fanId: '',
          sealedContact: sealOrderContact(
            { customerEmail: `fan${i}@example.com`, thirdPartyAccountId: `user-${i}`, fanId: '' },
            orderId,
            DEVELOPMENT_CONTACT_KEYS,
          ),
          deliveryOption: undefined,
          sandbox: false,
          resoldTicketIds: [],
          resoldFromOrderId: '',
        },
      },
    ]);
  }
  const tokens: string[] = [];
  for (const [i, order] of orders.entries()) {
    for (let attempt = 0; ; attempt += 1) {
      try {
        const read = await callUnary(admin, 'getOrder', {
          orderToken: order.orderToken,
          appId: 'app-bench',
          deviceId: `device-${i}`,
          deviceType: 'native',
          deviceOs: 'ios',
          thirdPartyAccountId: `user-${i}`,
          sandbox: false,
        });
        tokens.push(...read.tickets.map((t) => t.token));
        break;
      } catch (error) {
        // The consumer may not have issued this order yet.
        if (attempt > 200) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }
  const { token: gateToken } = await callUnary(admin, 'createGate', {
    name: 'Bench gate',
    eventId: EVENT_ID,
  });

  const client = createSecureEntryClient(address, { deadlineMs: 5_000, logger });
  const edge = createHttpServer({ logger });
  await registerEdgeRoutes(edge, {
    adminToken: randomBytes(24).toString('base64url'),
    version: 'bench',
    backends: { secureEntry: client } as never,
  });
  const httpPort = await listenHttp(edge, { host: '127.0.0.1', port: 0 });
  process.on('message', (message) => {
    if (message === 'cpu') process.send!({ cpu: process.cpuUsage() });
  });
  process.send!({ httpPort, gateToken, tokens });
}

async function main(): Promise<void> {
  const { default: autocannon } = await import('autocannon');
  const { decodeToken, payloadAt } = await import('@marquee/render-kit/format');
  const child = fork(fileURLToPath(import.meta.url), ['--server'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<{ httpPort: number; gateToken: string; tokens: string[] }>(
    (resolve, reject) => {
      child.once('message', (m) => resolve(m as never));
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    },
  );
  const serverCpuMs = () =>
    new Promise<number>((resolve) => {
      child.once('message', (m) => {
        const { user, system } = (m as { cpu: { user: number; system: number } }).cpu;
        resolve((user + system) / 1000);
      });
      child.send('cpu');
    });
  const url = `http://127.0.0.1:${ready.httpPort}/gate/v1/scans`;
  const decoded = ready.tokens.map((t) => decodeToken(t));
  // Each request shows the payload of the moment it is sent, as a scanner reading a live barcode.
  const body = (i: number) =>
    JSON.stringify({ payload: payloadAt(decoded[i % decoded.length]!, Date.now()) });
  // The replay run sends back, byte for byte, the payloads the admit run sent (refused as REPLAYED
  // while their step is current, EXPIRED after).
  const sent: string[] = [];
  const results = [];
  for (const scenario of ['admit', 'replay'] as const) {
    let next = 0;
    const counts: Record<string, number> = {};
    const cpuBefore = await serverCpuMs();
    const result = await autocannon({
      url,
      method: 'POST',
      connections: CONNECTIONS,
      amount: decoded.length,
      headers: {
        authorization: `Bearer ${ready.gateToken}`,
        'content-type': 'application/json',
      },
      requests: [
        {
          setupRequest: (request: Record<string, unknown>) => {
            const i = next++;
            const payload = scenario === 'admit' ? body(i) : sent[i % sent.length]!;
            if (scenario === 'admit') sent.push(payload);
            return { ...request, body: payload };
          },
          onResponse: (_status: number, body: string) => {
            const result = (JSON.parse(body) as { result?: string }).result ?? 'error';
            counts[result] = (counts[result] ?? 0) + 1;
          },
        },
      ],
    } as never);
    const cpuUsed = (await serverCpuMs()) - cpuBefore;
    results.push({
      scenario,
      requests: result.requests.total,
      validationsPerSecond: Math.round(
        result.requests.total / Math.max(0.001, (result as { duration?: number }).duration ?? 1),
      ),
      serverCpuMsPerScan: Math.round((cpuUsed / Math.max(1, result.requests.total)) * 100) / 100,
      latencyMs: latencyMsOf(result),
      results: counts,
      non2xx: result.non2xx,
      errors: result.errors,
    });
  }
  child.kill('SIGTERM');
  console.log(
    JSON.stringify(
      {
        benchmark: 'secure-entry-gate',
        setup: {
          tickets: decoded.length,
          path: 'HTTP edge gate API → gRPC → secure-entry (in-memory repositories)',
          connections: CONNECTIONS,
        },
        results,
      },
      null,
      2,
    ),
  );
}

if (process.argv.includes('--server')) await server();
else await main();
