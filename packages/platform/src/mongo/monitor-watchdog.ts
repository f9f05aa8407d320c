import type { Logger } from '../logger/index.js';

/** The part of a `MongoClient` the watchdog uses. */
export interface WatchedClient {
  on(
    event: 'serverHeartbeatStarted' | 'serverHeartbeatSucceeded' | 'serverHeartbeatFailed',
    listener: () => void,
  ): unknown;
  close(): Promise<void>;
  connect(): Promise<unknown>;
}

export interface MonitorWatchdogOptions {
  /** A heartbeat pending this long means the monitor is stuck. */
  stallMs: number;
  logger: Logger;
  /** How often to look; default a third of `stallMs`. */
  checkEveryMs?: number;
}

/**
 * Restarts a Mongo client whose server monitor has stopped.
 *
 * The driver learns that a restarted server is back only from its monitor's heartbeats. Seen with
 * driver 7.8 and FerretDB restarted under load: one heartbeat started on a connection the restart
 * had closed and never finished, neither succeeded nor failed, so the server stayed "Unknown" and
 * every operation of the process failed server selection for as long as it ran (the other services
 * of the same stack reconnected). A heartbeat's longest legitimate wait is its connect plus one
 * `hello`, each bounded by `connectTimeoutMS`; one pending for `stallMs` (above twice that) is
 * stuck. The watchdog then closes the client and connects it again: the same `MongoClient`, so
 * mongoose's connection and everything holding it keep working, with a new topology and monitor.
 * Operations in flight fail with a transient error, which callers already retry.
 *
 * Returns a function that stops the watchdog.
 */
export function watchMonitor(client: WatchedClient, options: MonitorWatchdogOptions): () => void {
  const log = options.logger;
  let pendingSince: number | undefined;
  let restarting = false;
  client.on('serverHeartbeatStarted', () => {
    pendingSince ??= Date.now();
  });
  const settled = (): void => {
    pendingSince = undefined;
  };
  client.on('serverHeartbeatSucceeded', settled);
  client.on('serverHeartbeatFailed', settled);

  const restart = async (pendingMs: number): Promise<void> => {
    restarting = true;
    log.error({ pending_ms: pendingMs }, 'mongo server monitor stalled; restarting the client');
    // A fresh wait: a restart that cannot connect yet is tried again a whole stall later.
    pendingSince = Date.now();
    try {
      await client.close();
      await client.connect();
      log.info('mongo client restarted');
    } catch (err) {
      log.warn({ err }, 'mongo client restart did not connect; operations connect on their own');
    } finally {
      restarting = false;
    }
  };

  const timer = setInterval(
    () => {
      if (restarting || pendingSince === undefined) return;
      const pendingMs = Date.now() - pendingSince;
      if (pendingMs >= options.stallMs) void restart(pendingMs);
    },
    options.checkEveryMs ?? Math.max(1, Math.floor(options.stallMs / 3)),
  );
  timer.unref();
  return () => clearInterval(timer);
}
