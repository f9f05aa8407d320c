/**
 * What tracing costs an HTTP request of a Marquee server: the server's CPU per request and the heap
 * a held request (a long poll) keeps, with the platform's telemetry (`node --import
 * @marquee/platform/telemetry/register`, spans not recorded: no exporter, as in the benchmarks of the
 * stack) and without the SDK (`OTEL_SDK_DISABLED=true`).
 *
 * The server is a child process: `createHttpServer` (the platform's fastify factory, its hooks,
 * logger and metrics) with one route shaped like the waiting room's ticket read,
 * `GET /events/:event_id/queue/:id`, traced or with `config: { otel: false }` as the edge's long
 * poll has it. The load generator is this process:
 *
 * - `cpu`: 16 kept-alive undici connections send `TRACING_BENCH_REQUESTS` requests (30,000, after
 *   5,000 unmeasured) with a `traceparent` whose trace is not sampled, as the edge's callers' are;
 *   the report is the server's CPU (user + system) per request.
 * - `held`: `TRACING_BENCH_HELD` requests (3,000) held by the route until the measurement is taken,
 *   each on its own connection; the report is the server's heap after two full collections, per
 *   held request, against the same server before (after 200 requests held and answered).
 *
 * Each mode runs `TRACING_BENCH_ROUNDS` times (3), interleaved; the report prints every run and the
 * median. Loopback only. To compare with another state of the platform, build that state and run
 * the same command.
 *
 * Usage: pnpm -s turbo run build --filter=@marquee/platform; pnpm --filter @marquee/bench tracing
 */
import { fork, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { positive } from '../env.ts';
import { percentile } from '../stats.ts';

const REQUESTS = positive('TRACING_BENCH_REQUESTS', 30_000, 1_000_000);
const HELD = positive('TRACING_BENCH_HELD', 3_000, 20_000);
const ROUNDS = positive('TRACING_BENCH_ROUNDS', 3, 20);
const WARMUP_REQUESTS = 5_000;
const CONNECTIONS = 16;
const ROUTE = (id: string) => `/events/e1/queue/${id}`;
/** A caller's trace that is not sampled (flags 00): the server continues it without recording. */
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00';

type Message =
  | { type: 'listening'; port: number }
  | { type: 'cpu'; micros: number }
  | { type: 'heap'; bytes: number }
  | { type: 'held'; count: number };

interface Mode {
  name: string;
  /** Node options of the server. */
  execArgv: string[];
  env: Record<string, string>;
  untraced: boolean;
}

const REGISTER = '@marquee/platform/telemetry/register';
const MODES: Mode[] = [
  { name: 'no SDK', execArgv: [], env: { OTEL_SDK_DISABLED: 'true' }, untraced: false },
  { name: 'platform, traced route', execArgv: ['--import', REGISTER], env: {}, untraced: false },
  {
    name: 'platform, route untraced',
    execArgv: ['--import', REGISTER],
    env: {},
    untraced: true,
  },
];

// --- the server (child process) ---

async function serve(untraced: boolean): Promise<void> {
  const { createHttpServer } = await import('@marquee/platform/http');
  const { createLogger } = await import('@marquee/platform/logger');
  const app = createHttpServer({
    logger: createLogger({ service: 'tracing-bench', level: 'warn' }),
    serviceName: 'tracing-bench',
    requestTimeoutMs: 300_000,
  });
  const held: Array<() => void> = [];
  app.get<{ Querystring: { hold?: string } }>(
    '/events/:event_id/queue/:id',
    // `otel` is @fastify/otel's route switch (its types augment fastify's route config; this
    // package does not import them).
    (untraced ? { config: { otel: false } } : {}) as object,
    async (request) => {
      if (request.query.hold === '1') await new Promise<void>((resolve) => held.push(resolve));
      return { status: 'WAITING', position: 12, estimated_wait_seconds: 40 };
    },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const send = (message: Message) => process.send?.(message);
  const gc = (globalThis as { gc?: () => void }).gc;
  process.on('message', (message: string) => {
    if (message === 'cpu') {
      const usage = process.cpuUsage();
      send({ type: 'cpu', micros: usage.user + usage.system });
    } else if (message === 'heap') {
      gc?.();
      gc?.();
      send({ type: 'heap', bytes: process.memoryUsage().heapUsed });
    } else if (message === 'held') {
      send({ type: 'held', count: held.length });
    } else if (message === 'release') {
      for (const resolve of held.splice(0)) resolve();
      send({ type: 'held', count: held.length });
    } else if (message === 'exit') {
      process.exit(0);
    }
  });
  send({ type: 'listening', port: (app.server.address() as net.AddressInfo).port });
}

// --- the load generator ---

class Server {
  private waiting: Array<(message: Message) => void> = [];
  private readonly child: ChildProcess;
  readonly port: number;

  private constructor(child: ChildProcess, port: number) {
    this.child = child;
    this.port = port;
    child.on('message', (message: Message) => this.waiting.shift()?.(message));
  }

  static async start(mode: Mode): Promise<Server> {
    const child = fork(fileURLToPath(import.meta.url), ['serve', mode.untraced ? '1' : '0'], {
      execArgv: [...mode.execArgv, '--expose-gc'],
      env: { ...process.env, ...mode.env, NODE_OPTIONS: '' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const message = await new Promise<Message>((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    if (message.type !== 'listening') throw new Error('server did not start');
    return new Server(child, message.port);
  }

  /** Every question but `exit` is answered. */
  ask(question: 'cpu' | 'heap' | 'held' | 'release'): Promise<Message> {
    const answer = new Promise<Message>((resolve) => this.waiting.push(resolve));
    this.child.send(question);
    return answer;
  }

  async number(question: 'cpu' | 'heap' | 'held'): Promise<number> {
    const message = await this.ask(question);
    if (message.type === 'cpu') return message.micros;
    if (message.type === 'heap') return message.bytes;
    if (message.type === 'held') return message.count;
    throw new Error(`unexpected answer to ${question}`);
  }

  stop(): void {
    this.child.send('exit');
  }
}

async function requests(port: number, count: number): Promise<void> {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONNECTIONS });
  let sent = 0;
  const worker = async () => {
    while (sent < count) {
      sent += 1;
      const response = await pool.request({
        method: 'GET',
        path: ROUTE(`t${sent}`),
        headers: { traceparent: TRACEPARENT },
      });
      if (response.statusCode !== 200) throw new Error(`answered ${response.statusCode}`);
      await response.body.text();
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  await pool.close();
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Holds `count` requests, each on a connection of its own, until the server has them all. */
async function hold(server: Server, count: number): Promise<net.Socket[]> {
  const sockets: net.Socket[] = [];
  for (let i = 0; i < count; i++) {
    const socket = net.connect(server.port, '127.0.0.1');
    socket.on('error', () => {});
    socket.on('data', () => {});
    socket.write(
      `GET ${ROUTE(`h${i}`)}?hold=1 HTTP/1.1\r\nhost: bench\r\ntraceparent: ${TRACEPARENT}\r\n\r\n`,
    );
    sockets.push(socket);
    if (i % 200 === 199) await pause(20);
  }
  const deadline = Date.now() + 60_000;
  while ((await server.number('held')) < count) {
    if (Date.now() > deadline) throw new Error('the server did not receive every held request');
    await pause(50);
  }
  return sockets;
}

async function measure(mode: Mode): Promise<{ cpuMicrosPerRequest: number; heldKiB: number }> {
  const server = await Server.start(mode);
  try {
    await requests(server.port, WARMUP_REQUESTS);
    const before = await server.number('cpu');
    await requests(server.port, REQUESTS);
    const cpuMicrosPerRequest = ((await server.number('cpu')) - before) / REQUESTS;

    // The first held requests (and their answers) grow pools that stay; measure after them.
    const first = await hold(server, 200);
    await server.ask('release');
    await pause(300);
    for (const socket of first) socket.destroy();
    await pause(300);
    const heapBefore = await server.number('heap');
    const sockets = await hold(server, HELD);
    const heldKiB = ((await server.number('heap')) - heapBefore) / HELD / 1024;
    for (const socket of sockets) socket.destroy();
    return { cpuMicrosPerRequest, heldKiB };
  } finally {
    server.stop();
  }
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const round = (value: number) => Math.round(value * 10) / 10;

async function main(): Promise<void> {
  const runs = new Map<string, Array<{ cpuMicrosPerRequest: number; heldKiB: number }>>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of MODES) {
      const result = await measure(mode);
      runs.set(mode.name, [...(runs.get(mode.name) ?? []), result]);
      console.error(
        `[tracing] round ${round + 1}/${ROUNDS} ${mode.name}: ${result.cpuMicrosPerRequest.toFixed(1)} µs a request, ${result.heldKiB.toFixed(2)} KiB a held request`,
      );
    }
  }
  const report = Object.fromEntries(
    [...runs].map(([name, results]) => [
      name,
      {
        cpuMicrosPerRequest: round(median(results.map((r) => r.cpuMicrosPerRequest))),
        heldRequestHeapKiB: round(median(results.map((r) => r.heldKiB))),
        runs: results.map((r) => [round(r.cpuMicrosPerRequest), round(r.heldKiB)]),
      },
    ]),
  );
  console.log(
    JSON.stringify({ requests: REQUESTS, held: HELD, connections: CONNECTIONS, report }, null, 2),
  );
}

if (process.argv[2] === 'serve') await serve(process.argv[3] === '1');
else await main();
