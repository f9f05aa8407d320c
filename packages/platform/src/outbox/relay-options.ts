/**
 * The outbox relay's options (`createOutboxRelay`), their defaults and their checks.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../logger/index.js';
import type { OutboxSource, RawPublisher } from './types.js';

export interface OutboxRelayOptions {
  sources: readonly OutboxSource[];
  /** Publishes encoded bytes unchanged; wire to the bus's raw publish. */
  publish: RawPublisher;
  logger: Logger;
  /** How often to look for events written by other processes (local writes nudge the relay). Default 1000. */
  pollIntervalMs?: number;
  /** Documents read per source per pass. Default 100. */
  batchSize?: number;
  /**
   * Least time from one pass's start to the next's (0: none). Writes that come while it runs go
   * out together in the next pass, in one produce request, rather than a request each: the broker's
   * CPU goes by requests. An event written after a quiet spell goes out at once. Default 20.
   */
  lingerMs?: number;
  /** Lease duration; another replica takes over this long after a crash. Default 30 000. */
  leaseMs?: number;
  /** First retry delay after a failure; doubles per attempt up to `retryMaxMs`. Default 500. */
  retryMinMs?: number;
  /** Default 60 000. */
  retryMaxMs?: number;
  /**
   * Longest wait between passes while the bus itself is unreachable (a publish failed with a
   * transient error: broker down, connection lost). Default 5 000: events written meanwhile go out
   * at most this long after the broker is back, or about a second after it when the publisher has
   * a `ready` probe. `retryMinMs` is the first wait.
   */
  outageRetryMaxMs?: number;
  /** Lease owner id; default `<hostname>:<pid>:<random>`. */
  owner?: string;
}

/** A relay's options with their defaults applied and checked. */
export interface RelaySettings {
  pollIntervalMs: number;
  batchSize: number;
  lingerMs: number;
  leaseMs: number;
  retryMinMs: number;
  retryMaxMs: number;
  outageRetryMaxMs: number;
  owner: string;
}

export function settingsOf(options: OutboxRelayOptions): RelaySettings {
  const retryMinMs = positive('retryMinMs', options.retryMinMs ?? 500);
  return {
    pollIntervalMs: positive('pollIntervalMs', options.pollIntervalMs ?? 1_000),
    batchSize: positive('batchSize', options.batchSize ?? 100),
    lingerMs: notNegative('lingerMs', options.lingerMs ?? 20),
    leaseMs: positive('leaseMs', options.leaseMs ?? 30_000),
    retryMinMs,
    retryMaxMs: Math.max(retryMinMs, positive('retryMaxMs', options.retryMaxMs ?? 60_000)),
    outageRetryMaxMs: Math.max(
      retryMinMs,
      positive('outageRetryMaxMs', options.outageRetryMaxMs ?? 5_000),
    ),
    owner: options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
  };
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`createOutboxRelay: ${name} must be a positive number`);
  return value;
}

function notNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0)
    throw new RangeError(`createOutboxRelay: ${name} must be 0 or more`);
  return value;
}
