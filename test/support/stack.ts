import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { allTopics } from '@marquee/proto/topics';
import { Kafka, logLevel } from 'kafkajs';
import { ensureTopics } from '@marquee/platform/bus';
import { createLogger } from '@marquee/platform/logger';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { startStripeRecorder, type StripeRecorder } from './stripe-recorder.ts';

/**
 * The distributed mode under test: every service as its own Node process (its built dist/main.js,
 * exactly what the container runs), on free loopback ports, against real Kafka and Mongo, each
 * with its own database. Used by the e2e tier and the benchmarks.
 */

const repo = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The back ends, each with its name, the config key of its gRPC address, and the `GRPC_ADDR_*`
 * keys it calls (filled from those started before it). They start in waves (`launchWaves`), the
 * edge after all of them (it needs every address).
 */
export const backends: ReadonlyArray<{ name: string; addressKey?: string; needs?: string[] }> = [
  { name: 'auth-gateway', addressKey: 'GRPC_ADDR_AUTH_GATEWAY' },
  { name: 'publisher', addressKey: 'GRPC_ADDR_PUBLISHER' },
  { name: 'catalog-indexer', addressKey: 'GRPC_ADDR_CATALOG_INDEXER' },
  { name: 'deals', addressKey: 'GRPC_ADDR_DEALS', needs: ['GRPC_ADDR_CATALOG_INDEXER'] },
  { name: 'partner-reference' },
  { name: '3p-connector', addressKey: 'GRPC_ADDR_3P_CONNECTOR' },
  { name: 'secure-entry', addressKey: 'GRPC_ADDR_SECURE_ENTRY' },
  {
    name: 'cart',
    addressKey: 'GRPC_ADDR_CART',
    needs: ['GRPC_ADDR_3P_CONNECTOR', 'GRPC_ADDR_SECURE_ENTRY'],
  },
  {
    name: 'reconciler',
    addressKey: 'GRPC_ADDR_RECONCILER',
    needs: ['GRPC_ADDR_3P_CONNECTOR'],
  },
];

type Backend = (typeof backends)[number];

/**
 * The back ends in start waves: a wave holds those whose addresses the services of the next need.
 * The services of a wave start side by side and the next wave once all of them are ready, so a
 * stack starts in about the time of its slowest chain (three waves) rather than the sum of ten
 * starts; it stops in the reverse order, the edge first.
 */
export function launchWaves(list: ReadonlyArray<Backend> = backends): Backend[][] {
  const depth = new Map<string, number>();
  const providers = new Map(list.flatMap((b) => (b.addressKey ? [[b.addressKey, b]] : [])));
  const depthOf = (backend: Backend, seen: string[] = []): number => {
    const known = depth.get(backend.name);
    if (known !== undefined) return known;
    if (seen.includes(backend.name))
      throw new Error(`stack: start order has a cycle: ${[...seen, backend.name].join(' -> ')}`);
    let level = 0;
    for (const key of backend.needs ?? []) {
      const provider = providers.get(key);
      if (!provider) throw new Error(`stack: ${backend.name} needs ${key}, which no back end has`);
      level = Math.max(level, depthOf(provider, [...seen, backend.name]) + 1);
    }
    depth.set(backend.name, level);
    return level;
  };
  const waves: Backend[][] = [];
  for (const backend of list) (waves[depthOf(backend)] ??= []).push(backend);
  return waves;
}

export interface ServiceProcess {
  name: string;
  httpPort: number;
  grpcPort: number;
  /** Its Prometheus metrics: `http://127.0.0.1:<metricsPort>/metrics`. */
  metricsPort: number;
  child: ChildProcess;
  output: string[];
}

export interface Stack {
  baseUrl: string;
  adminToken: string;
  /** partner-reference's back-office token (its own: the platform's admin token is refused there). */
  partnerAdminToken: string;
  services: Map<string, ServiceProcess>;
  /** partner-reference: its 3P API base URL, token URL and the client credentials it accepts. */
  partner: { baseUrl: string; tokenUrl: string; clientId: string; clientSecret: string };
  /**
   * Stripe as cart sees it: the recording proxy in front of stripe-mock (what cart sent, the
   * PaymentIntents' states) and the webhook signing secret cart and the edge were given. Absent
   * when the stack runs without stripe-mock (`StackOptions.stripeMockUrl`).
   */
  stripe?: { recorder: StripeRecorder; webhookSecret: string };
  /** SIGTERM one service and wait for it to exit (fault drills). */
  stopService(name: string): Promise<void>;
  /**
   * Start a stopped service again, on the same ports and with the same environment; `env` (when
   * given) is added for this start only and wins over the rest (e.g. a shorter hold for one test).
   */
  startService(name: string, env?: Record<string, string>): Promise<void>;
  /**
   * SIGTERM every process and wait for each to exit: the edge first, then the back ends' start
   * waves from the last (the processes of a wave side by side).
   */
  stop(): Promise<void>;
}

export interface StackOptions {
  kafkaBrokers: string;
  mongoUrl: string;
  /** Prefix of every service's database, unique per run so runs never see each other's data. */
  dbPrefix?: string;
  readyTimeoutMs?: number;
  /** Extra environment per service name (shorter intervals and deadlines for a test). */
  serviceEnv?: Record<string, Record<string, string>>;
  /**
   * Processes per service name (default 1), for read replicas (catalog-indexer, deals): the extra
   * ones are `<name>#2`, … in `services`, with ports of their own and the same environment, and
   * whoever calls the service gets every replica's address, comma separated.
   */
  replicas?: Record<string, number>;
  /**
   * The broker's authenticated listener: every service that produces or consumes logs in there as
   * its own SASL user (password file `<credentialsDir>/<service>`), so the ACLs generated from the
   * topic catalog hold for the whole stack. Default: `KAFKA_SASL_BROKERS` and
   * `KAFKA_CREDENTIALS_DIR` (infra.sh env) when `kafkaBrokers` is the environment's
   * `KAFKA_BROKERS`, i.e. the same broker. The test's own clients keep using `kafkaBrokers`.
   */
  kafkaSasl?: { brokers: string; credentialsDir: string };
  /**
   * stripe-mock's address (default `STRIPE_MOCK_URL`). With it, production-prefix carts are paid
   * through cart's Stripe adapter, against stripe-mock behind a recording proxy (`Stack.stripe`),
   * and pay with Stripe test PaymentMethods (`pm_card_visa`). Without it (`''`, or unset), cart
   * runs production-prefix carts on the sandbox (`CART_PRODUCTION_SANDBOX_PAYMENTS`): for stacks
   * that never pay a production cart. Sandbox-prefix carts use the sandbox either way.
   */
  stripeMockUrl?: string;
}

/** The environment's authenticated listener of the broker `kafkaBrokers` names, when it has one. */
function kafkaSaslOf(options: StackOptions): StackOptions['kafkaSasl'] {
  if (options.kafkaSasl) return options.kafkaSasl;
  const brokers = process.env.KAFKA_SASL_BROKERS;
  const credentialsDir = process.env.KAFKA_CREDENTIALS_DIR;
  if (!brokers || !credentialsDir || options.kafkaBrokers !== process.env.KAFKA_BROKERS) return;
  return { brokers, credentialsDir };
}

/** A service's Kafka login on the authenticated listener; none for a service without a user. */
function kafkaLoginEnv(sasl: StackOptions['kafkaSasl'], service: string): Record<string, string> {
  const password = sasl && `${sasl.credentialsDir}/${service}`;
  if (!sasl || !password || !existsSync(password)) return {};
  return {
    KAFKA_BROKERS: sasl.brokers,
    KAFKA_SASL_MECHANISM: 'scram-sha-512',
    KAFKA_SASL_USERNAME: service,
    KAFKA_SASL_PASSWORD_FILE: password,
  };
}

/**
 * A free loopback port for a service to listen on. Ports are drawn below the kernel's ephemeral
 * range: a port from `listen(0)` lies inside it, and between probing and the child's own bind, any
 * outgoing connection (a Kafka or Mongo client of a service started earlier) may be given that
 * same port, which made a service fail with EADDRINUSE. `launch` also retries on EADDRINUSE for the
 * remaining race with other listeners.
 */
export async function freePort(): Promise<number> {
  const [low, high] = [10_000, ephemeralRangeStart()];
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    // Services start side by side: a port probed free for one is not handed to another.
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await canListen(port)) return port;
  }
  throw new Error(`stack: no free port in ${low}-${high - 1} after 100 attempts`);
}

/** Every port `freePort` returned in this process (or probed for it). */
const handedOut = new Set<number>();

function ephemeralRangeStart(): number {
  try {
    const [start] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (start && start > 10_100) return start;
  } catch {
    // Not Linux: IANA's dynamic range starts at 49152.
  }
  return 32_768;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Every topic of the catalog and its `.dlq` twin, created when missing (the topic Job's part). */
export async function provisionTopics(brokers: string): Promise<void> {
  const kafka = new Kafka({
    clientId: 'marquee-e2e-topics',
    brokers: brokers.split(','),
    logLevel: logLevel.ERROR,
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    await ensureTopics(admin, allTopics);
  } finally {
    await admin.disconnect();
  }
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const dbPrefix = options.dbPrefix ?? `e2e${randomBytes(4).toString('hex')}`;
  const adminToken = randomBytes(24).toString('base64url');
  const partnerAdminToken = randomBytes(24).toString('base64url');
  // The key services sign their gRPC calls with (production requires it). Also set in this
  // process, so clients a test makes with createGrpcClient are accepted by the stack's services.
  const serviceAuthKey = process.env.SERVICE_AUTH_KEY || randomBytes(32).toString('base64');
  process.env.SERVICE_AUTH_KEY = serviceAuthKey;
  const services = new Map<string, ServiceProcess>();
  const edgeEnv: Record<string, string> = {};
  const partnerCredentials = {
    clientId: `e2e-${randomBytes(4).toString('hex')}`,
    clientSecret: randomBytes(24).toString('base64url'),
  };
  // cart seals the buyer's contact on order-confirmed, secure-entry opens it: one ring for both.
  const orderContactKeys = `k1:${randomBytes(32).toString('base64')}`;
  // Secrets production requires of each service (NODE_ENV=production below).
  const ownEnv: Record<string, Record<string, string>> = {
    'partner-reference': {
      PARTNER_ADMIN_TOKEN: partnerAdminToken,
      PARTNER_CLIENT_ID: partnerCredentials.clientId,
      PARTNER_CLIENT_SECRET: partnerCredentials.clientSecret,
    },
    '3p-connector': {
      PARTNER_CREDENTIALS_KEY: randomBytes(32).toString('base64'),
      // partner-reference runs on loopback over http: listed explicitly, as an operator would.
      PARTNER_ALLOWED_HOSTS: '127.0.0.1',
    },
    // No nightly maintenance window: tests must not depend on the wall clock.
    cart: {
      CART_ORDER_TOKEN_KEY: randomBytes(32).toString('base64'),
      ORDER_CONTACT_KEYS: orderContactKeys,
      CART_MAINTENANCE_WINDOW: 'off',
    },
    'secure-entry': {
      SECURE_ENTRY_TOKEN_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      SECURE_ENTRY_SECRET_KEY: randomBytes(32).toString('base64'),
      ORDER_CONTACT_KEYS: orderContactKeys,
    },
  };
  const stripeMockUrl = options.stripeMockUrl ?? process.env.STRIPE_MOCK_URL ?? '';
  const stripe = stripeMockUrl
    ? {
        recorder: await startStripeRecorder(stripeMockUrl),
        webhookSecret: `whsec_${randomBytes(24).toString('hex')}`,
      }
    : undefined;
  if (!stripe)
    process.stderr.write(
      'stack: STRIPE_MOCK_URL is unset: production-prefix carts are paid through the sandbox, ' +
        'and a test paying one with a Stripe PaymentMethod fails\n',
    );
  ownEnv.cart = { ...ownEnv.cart, ...cartPaymentEnv(stripe) };
  if (stripe) ownEnv['edge-gateway'] = { STRIPE_WEBHOOK_SECRET: stripe.webhookSecret };
  const launched = new Map<string, { env: Record<string, string>; ports: [number, number] }>();
  const kafkaSasl = kafkaSaslOf(options);

  const launch = async (
    name: string,
    callEnv: Record<string, string>,
    attempt = 1,
    ports?: [number, number],
    instance = name,
    override: Record<string, string> = {},
  ): Promise<ServiceProcess> => {
    const [httpPort, grpcPort] = ports ?? [await freePort(), await freePort()];
    // Many services (and other runs) share this machine: never the default 9464.
    const metricsPort = await freePort();
    const extraEnv = { ...ownEnv[name], ...callEnv, ...options.serviceEnv?.[name], ...override };
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'production',
      KAFKA_BROKERS: options.kafkaBrokers,
      MONGO_URL: options.mongoUrl,
      MONGO_DB: `${dbPrefix}_${name.replace(/-/g, '_')}`,
      HTTP_PORT: String(httpPort),
      GRPC_PORT: String(grpcPort),
      METRICS_PORT: String(metricsPort),
      ADMIN_TOKEN: adminToken,
      SERVICE_AUTH_KEY: serviceAuthKey,
      LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'warn',
      // Per-interval Mongo command counts in every service's log (needs E2E_LOG_LEVEL=info).
      ...(process.env.E2E_MONGO_COMMAND_STATS_MS
        ? { MONGO_COMMAND_STATS_MS: process.env.E2E_MONGO_COMMAND_STATS_MS }
        : {}),
      // E2E_OTEL_SDK_DISABLED=true: no OpenTelemetry SDK in the services (what tracing costs).
      ...(process.env.E2E_OTEL_SDK_DISABLED
        ? { OTEL_SDK_DISABLED: process.env.E2E_OTEL_SDK_DISABLED }
        : {}),
      ...(process.env.E2E_MONGO_MAX_POOL_SIZE
        ? { MONGO_MAX_POOL_SIZE: process.env.E2E_MONGO_MAX_POOL_SIZE }
        : {}),
      ...kafkaLoginEnv(kafkaSasl, name),
      ...extraEnv,
    };
    // An empty value in `serviceEnv` unsets the variable (e.g. `MONGO_URL: ''` for in-memory stores).
    for (const [key, value] of Object.entries(env)) if (value === '') delete env[key];
    launched.set(instance, { env: callEnv, ports: [httpPort, grpcPort] });
    const child = spawn(
      process.execPath,
      [
        '--enable-source-maps',
        // E2E_CPU_PROFILE_DIR=<dir>: V8 CPU profiles of every service (a file per thread, the module
        // loader's worker included) in <dir>/<instance>/, written when it exits.
        ...(process.env.E2E_CPU_PROFILE_DIR
          ? ['--cpu-prof', `--cpu-prof-dir=${process.env.E2E_CPU_PROFILE_DIR}/${instance}`]
          : []),
        // As its start script: the launch hook gives it its package.json's V8 options (`marquee.v8`).
        '--import',
        '@marquee/platform/v8/launch',
        '--import',
        '@marquee/platform/telemetry/register',
        'dist/main.js',
      ],
      {
        cwd: `${repo}/services/${name}`,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const output: string[] = [];
    // E2E_SERVICE_LOGS=<dir>: every line of every service, appended to <dir>/<instance>.log.
    const logFile = process.env.E2E_SERVICE_LOGS
      ? createWriteStream(`${process.env.E2E_SERVICE_LOGS}/${instance}.log`, { flags: 'a' })
      : undefined;
    const keep = (chunk: Buffer) => {
      logFile?.write(chunk);
      output.push(chunk.toString());
      if (output.length > 200) output.shift();
    };
    child.once('exit', () => logFile?.end());
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const service = { name: instance, httpPort, grpcPort, metricsPort, child, output };
    services.set(instance, service);
    try {
      await waitReady(service, options.readyTimeoutMs ?? 60_000);
    } catch (error) {
      // Another listener took a port between the probe and the child's bind: new ports, again.
      if (
        !ports &&
        child.exitCode !== null &&
        output.join('').includes('EADDRINUSE') &&
        attempt < 3
      ) {
        services.delete(instance);
        return launch(name, callEnv, attempt + 1, undefined, instance, override);
      }
      throw error;
    }
    return service;
  };

  const stopProcess = async (service: ServiceProcess) => {
    if (service.child.exitCode !== null || service.child.signalCode !== null) return;
    const exited = new Promise((resolve) => service.child.once('exit', resolve));
    service.child.kill('SIGTERM');
    await Promise.race([exited, delay(30_000).then(() => service.child.kill('SIGKILL'))]);
  };
  let dropped = false;
  const waves = launchWaves();
  // Stop order: the edge (and anything not a back end) first, then the waves from the last.
  const waveOf = new Map(waves.flatMap((wave, level) => wave.map((b) => [b.name, level] as const)));
  const stopLevel = (service: ServiceProcess) =>
    waveOf.get(service.name.split('#')[0]!) ?? Number.MAX_SAFE_INTEGER;
  const stop = async () => {
    const levels = [...new Set([...services.values()].map(stopLevel))].sort((a, b) => b - a);
    for (const level of levels)
      await Promise.all(
        [...services.values()].filter((s) => stopLevel(s) === level).map(stopProcess),
      );
    // The run's databases go with it (one per service, 24 files on a local FerretDB), unless
    // E2E_KEEP_DATA asks to keep them for a look after a failure.
    if (dropped) return;
    dropped = true;
    await stripe?.recorder.stop();
    if (process.env.E2E_KEEP_DATA) return;
    await dropDatabases(options.mongoUrl, `${dbPrefix}_`).catch((error: unknown) =>
      process.stderr.write(`stack: databases ${dbPrefix}_* left behind: ${String(error)}\n`),
    );
  };
  const stopService = async (name: string) => {
    const service = services.get(name);
    if (!service) throw new Error(`stack: no service ${name}`);
    await stopProcess(service);
  };
  const startService = async (name: string, env: Record<string, string> = {}) => {
    const previous = launched.get(name);
    if (!previous) throw new Error(`stack: ${name} was never started`);
    await launch(name.split('#')[0]!, previous.env, 1, previous.ports, name, env);
  };

  try {
    // The services run as in production, where they never create topics (KAFKA_TOPICS=verify):
    // provision every catalog topic first, as the chart's topic Job does.
    await provisionTopics(options.kafkaBrokers);
    const startBackend = async ({ name, addressKey, needs = [] }: Backend) => {
      const calls: Record<string, string> = {};
      for (const key of needs) {
        const address = edgeEnv[key];
        if (!address) throw new Error(`stack: ${name} needs ${key}, not started before it`);
        calls[key] = address;
      }
      const instances = [name];
      for (let replica = 2; replica <= (options.replicas?.[name] ?? 1); replica++)
        instances.push(`${name}#${replica}`);
      const started = await allReady(
        instances.map((instance) => launch(name, calls, 1, undefined, instance)),
      );
      if (addressKey) edgeEnv[addressKey] = started.map((s) => `127.0.0.1:${s.grpcPort}`).join(',');
      // The edge proxies /oauth/* to auth-gateway's HTTP.
      if (name === 'auth-gateway')
        edgeEnv.HTTP_URL_AUTH_GATEWAY = `http://127.0.0.1:${started[0]!.httpPort}`;
    };
    for (const wave of waves) await allReady(wave.map(startBackend));
    const edge = await launch('edge-gateway', edgeEnv);
    const partnerBase = `http://127.0.0.1:${services.get('partner-reference')!.httpPort}`;
    return {
      baseUrl: `http://127.0.0.1:${edge.httpPort}`,
      adminToken,
      partnerAdminToken,
      services,
      partner: {
        baseUrl: `${partnerBase}/v1`,
        tokenUrl: `${partnerBase}/oauth/token`,
        ...partnerCredentials,
      },
      ...(stripe ? { stripe } : {}),
      stopService,
      startService,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * How cart pays production-prefix carts: on its Stripe adapter through the recording proxy (the
 * proxy's certificate trusted through NODE_EXTRA_CA_CERTS: production refuses a plain-http API
 * base), or on the sandbox when the stack has no stripe-mock.
 */
function cartPaymentEnv(
  stripe: { recorder: StripeRecorder; webhookSecret: string } | undefined,
): Record<string, string> {
  if (!stripe)
    return { CART_PAYMENT_PROCESSOR: 'sandbox', CART_PRODUCTION_SANDBOX_PAYMENTS: 'true' };
  return {
    CART_PAYMENT_PROCESSOR: 'stripe',
    STRIPE_SECRET_KEY: 'sk_test_marqueestack',
    STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
    STRIPE_API_BASE: stripe.recorder.url,
    NODE_EXTRA_CA_CERTS: stripe.recorder.caFile,
  };
}

/** Drops every database whose name starts with `prefix`. */
async function dropDatabases(mongoUrl: string, prefix: string): Promise<string[]> {
  const logger = createLogger({ service: 'stack', level: 'silent' });
  const mongo = await connectMongo({ url: mongoUrl, dbName: 'admin', logger });
  try {
    const client = mongo.getClient();
    const { databases } = await client.db('admin').admin().listDatabases({ nameOnly: true });
    const names = databases.map((db) => db.name).filter((name) => name.startsWith(prefix));
    for (const name of names) await client.db(name).dropDatabase();
    return names;
  } finally {
    await closeMongo(mongo, logger);
  }
}

async function waitReady(service: ServiceProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null) {
      throw new Error(
        `${service.name} exited with ${service.child.exitCode}:\n${service.output.join('')}`,
      );
    }
    try {
      const response = await fetch(`http://127.0.0.1:${service.httpPort}/readyz`);
      if (response.ok) return;
      last = await response.text();
    } catch (error) {
      last = (error as Error).message;
    }
    await delay(250);
  }
  throw new Error(
    `${service.name} not ready after ${timeoutMs} ms (last: ${last}):\n${service.output.join('')}`,
  );
}

/**
 * Every start settled (ready or failed) before the first failure is thrown, so that `stop` then
 * finds every process that was spawned.
 */
async function allReady<T>(starts: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<T>).value);
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
