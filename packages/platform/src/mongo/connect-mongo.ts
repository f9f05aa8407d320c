import mongoose, { type Connection } from 'mongoose';
import { AppError } from '../errors/index.js';
import type { Logger } from '../logger/index.js';
import { watchMonitor } from './monitor-watchdog.js';
import { mongoUrlPassword, redactMongoUrl, REDACTED } from './redact-url.js';

export interface ConnectMongoOptions {
  /** `MONGO_URL`; may carry credentials, which are never logged. */
  url: string;
  /** One database per service (docs/decisions.md). */
  dbName: string;
  logger: Logger;
  /** Shown by the server in `currentOp` and logs; the service name. */
  appName?: string;
  /** How long an operation waits for a reachable server before failing. Default 5000. */
  serverSelectionTimeoutMS?: number;
  /** Default 20. */
  maxPoolSize?: number;
  /**
   * How long opening a connection (and a monitor's `hello`) may take. Default 10 000. A server
   * monitor check pending three times this long is taken as stalled and the client is restarted
   * (`monitor-watchdog.ts`).
   */
  connectTimeoutMS?: number;
  /**
   * Logs every command whose round trip (as the driver measures it: sent to answered) takes this
   * long or longer, with its name, collection and duration. Off by default.
   */
  slowCommandMs?: number;
  /**
   * Every this many ms, logs at info how many commands of each name and collection ran and their
   * summed round-trip time (names only). Off by default; for finding what a request costs.
   */
  commandStatsMs?: number;
}

/**
 * Opens a dedicated mongoose connection (never the global `mongoose`, so nothing is created at import
 * time and tests can open several). Index builds are explicit (`ensureIndexes` at start) rather than
 * `autoIndex`, which would build them in the background on first model use, hiding failures and
 * racing the first queries. Commands are not buffered while disconnected: a request fails within
 * `serverSelectionTimeoutMS` instead of hanging, and `/readyz` reports the outage.
 */
export async function connectMongo(options: ConnectMongoOptions): Promise<Connection> {
  const safeUrl = redactMongoUrl(options.url);
  const scrub = scrubber(options.url);
  const log = options.logger.child({ component: 'mongo', db: options.dbName });
  const connectTimeoutMS = options.connectTimeoutMS ?? 10_000;
  const connection = mongoose.createConnection(options.url, {
    dbName: options.dbName,
    ...(options.appName !== undefined ? { appName: options.appName } : {}),
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 5_000,
    maxPoolSize: options.maxPoolSize ?? 20,
    connectTimeoutMS,
    autoIndex: false,
    autoCreate: false,
    bufferCommands: false,
    ...(options.slowCommandMs !== undefined || options.commandStatsMs !== undefined
      ? { monitorCommands: true }
      : {}),
  });
  if (options.slowCommandMs !== undefined || options.commandStatsMs !== undefined)
    watchCommands(connection, log, options.slowCommandMs, options.commandStatsMs);
  // Without a listener an 'error' event would throw out of the EventEmitter.
  connection.on('error', (err: unknown) =>
    log.error({ url: safeUrl, error: scrub(errorMessage(err)) }, 'mongo connection error'),
  );
  connection.on('disconnected', () => log.warn({ url: safeUrl }, 'mongo disconnected'));
  connection.on('reconnected', () => log.info({ url: safeUrl }, 'mongo reconnected'));
  try {
    await connection.asPromise();
  } catch (err) {
    await connection.close(true).catch(() => undefined);
    // The driver's message can quote the connection string; only the scrubbed text leaves here.
    throw new AppError(
      'unavailable',
      `cannot connect to MongoDB at ${safeUrl}: ${scrub(errorMessage(err))}`,
    );
  }
  const stopWatchdog = watchMonitor(connection.getClient(), {
    stallMs: 3 * connectTimeoutMS,
    logger: log,
  });
  connection.once('close', stopWatchdog);
  log.info({ url: safeUrl, appName: options.appName }, 'mongo connected');
  return connection;
}

/** Readiness: true when the server answers a `ping` within `timeoutMs`. Never throws. */
export async function pingMongo(connection: Connection, timeoutMs = 2_000): Promise<boolean> {
  const db = connection.db;
  if (db === undefined || connection.readyState !== mongoose.ConnectionStates.connected)
    return false;
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const ping = db.command({ ping: 1 }, { timeoutMS: timeoutMs }).then((reply) => reply.ok === 1);
    return await Promise.race([ping, timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** Closes the connection (idempotent), letting in-flight operations finish. */
export async function closeMongo(connection: Connection, logger?: Logger): Promise<void> {
  if (connection.readyState === mongoose.ConnectionStates.disconnected) return;
  await connection.close();
  logger?.info({ component: 'mongo', db: connection.name }, 'mongo connection closed');
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function scrubber(url: string): (text: string) => string {
  const password = mongoUrlPassword(url);
  return (text) => {
    let out = text.split(url).join(redactMongoUrl(url));
    if (password !== undefined) {
      out = out.split(password).join(REDACTED);
      const decoded = safeDecode(password);
      if (decoded !== password && decoded.length > 0) out = out.split(decoded).join(REDACTED);
    }
    return out;
  };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * The slow-command log and the periodic command statistics. Names only: a filter or document may
 * hold personal data or secrets.
 */
function watchCommands(
  connection: Connection,
  log: Logger,
  slowMs: number | undefined,
  statsMs: number | undefined,
): void {
  const client = connection.getClient();
  const collections = new Map<number, string>();
  const stats = new Map<string, { count: number; ms: number }>();
  client.on('commandStarted', (event) => {
    const target = event.command[event.commandName] as unknown;
    if (typeof target === 'string') collections.set(event.requestId, target);
  });
  const report = (event: {
    requestId: number;
    commandName: string;
    duration: number;
    failure?: unknown;
  }) => {
    const collection = collections.get(event.requestId);
    collections.delete(event.requestId);
    if (statsMs !== undefined) {
      const name = `${event.commandName} ${collection ?? '-'}`;
      const entry = stats.get(name) ?? { count: 0, ms: 0 };
      entry.count += 1;
      entry.ms += event.duration;
      stats.set(name, entry);
    }
    if (slowMs === undefined || event.duration < slowMs) return;
    log.warn(
      {
        command: event.commandName,
        collection,
        duration_ms: Math.round(event.duration),
        failed: event.failure !== undefined,
      },
      'slow mongo command',
    );
  };
  client.on('commandSucceeded', report);
  client.on('commandFailed', report);
  if (statsMs === undefined) return;
  const timer = setInterval(() => {
    if (stats.size === 0) return;
    const commands = Object.fromEntries(
      [...stats]
        .sort((a, b) => b[1].ms - a[1].ms)
        .map(([name, { count, ms }]) => [name, { count, ms: Math.round(ms) }]),
    );
    stats.clear();
    log.info({ interval_ms: statsMs, commands }, 'mongo commands');
  }, statsMs);
  timer.unref();
  connection.once('close', () => clearInterval(timer));
}
