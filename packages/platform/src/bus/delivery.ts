import { context } from '@opentelemetry/api';
import { describeError, readAttributes, type CloudEventAttributes } from './cloud-events.js';
import type { BusLogger } from './logger.js';
import { RecordSignatureError } from './record-signature.js';
import { endSpan, startProcessSpan, type MessagingSystem } from './tracing.js';
import type { EventHandler, IncomingEvent, TopicDef } from './types.js';

/** Backoff between attempts of one record: `initialBackoffMs * multiplier^(n-1)`, capped, ±20% jitter. */
export interface RetryPolicy {
  initialBackoffMs: number;
  maxBackoffMs: number;
  multiplier: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  initialBackoffMs: 200,
  maxBackoffMs: 10_000,
  multiplier: 2,
};
export const DEFAULT_MAX_ATTEMPTS = 5;

export function retryPolicy(overrides: Partial<RetryPolicy> | undefined): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY, ...overrides };
  if (!(policy.initialBackoffMs >= 0 && policy.maxBackoffMs >= 0 && policy.multiplier >= 1)) {
    throw new RangeError(`invalid retry policy ${JSON.stringify(policy)}`);
  }
  return policy;
}

/** `keysInParallel` of a subscription, checked (an integer of at least 1; 1 by default). */
export function keysInParallelOf(value: number | undefined): number {
  const width = value ?? 1;
  if (!Number.isInteger(width) || width < 1)
    throw new RangeError(`keysInParallel must be an integer >= 1, got ${value}`);
  return width;
}

/**
 * How many of `records`, from `start`, may be handled together: at most `width`, and none whose key
 * an earlier one of the group has (so one key's records stay in order).
 */
export function distinctKeyRun<R>(
  records: readonly R[],
  start: number,
  width: number,
  keyOf: (record: R) => string,
): number {
  const keys = new Set<string>();
  let end = start;
  while (end < records.length && end - start < width) {
    const key = keyOf(records[end]!);
    if (keys.has(key)) break;
    keys.add(key);
    end += 1;
  }
  return end - start;
}

export function maxAttemptsOf(value: number | undefined): number {
  const attempts = value ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isInteger(attempts) || attempts < 1)
    throw new RangeError(`maxAttempts must be an integer >= 1, got ${value}`);
  return attempts;
}

/** Delay after failed attempt `attempt` (1-based). */
export function backoffMs(policy: RetryPolicy, attempt: number): number {
  const base = Math.min(
    policy.maxBackoffMs,
    policy.initialBackoffMs * policy.multiplier ** (attempt - 1),
  );
  // Jitter, so consumers that failed on the same outage do not all retry in the same instant.
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** A record as either adapter received it, before decoding. */
export interface ReceivedRecord {
  topic: string;
  partition: number;
  offset: string;
  key: string;
  value: Uint8Array | null;
  headers: Record<string, string>;
  timestamp: Date;
}

export type DeliveryOutcome =
  /** The handler succeeded: commit. */
  | { kind: 'handled'; attempts: number }
  /** Every attempt failed (or the value cannot be decoded): dead-letter, then commit. */
  | { kind: 'dead-letter'; attempts: number; error: unknown }
  /** The consumer is closing between attempts: commit nothing, so the record is delivered again. */
  | { kind: 'aborted'; attempts: number };

/** Thrown into the dead-letter path when the record value is not a valid message of the topic. */
export class UndecodableRecordError extends Error {
  override readonly name = 'UndecodableRecordError';
}

export interface DeliveryParams<T> {
  system: MessagingSystem;
  topic: TopicDef<T>;
  group: string;
  record: ReceivedRecord;
  handler: EventHandler<T>;
  maxAttempts: number;
  retry: RetryPolicy;
  /** Aborted by `close()`: ends a backoff early and stops further attempts. */
  signal: AbortSignal;
  /** Called during long backoffs (Kafka: heartbeat, so the group does not evict a retrying member). */
  keepAlive?: () => Promise<void>;
  logger: BusLogger;
  /**
   * What the caller does with a record that failed every attempt, for the log lines (default
   * `dead-letter`; a global subscription skips instead).
   */
  exhausted?: 'dead-letter' | 'skip';
  /**
   * Checks the record before any attempt (the producer's signature on signed topics): a problem
   * sends it straight to the dead-letter path with a {@link RecordSignatureError}, unhandled.
   */
  verify?: (record: ReceivedRecord) => string | undefined;
}

/**
 * Runs the handler on one record until it succeeds, attempts run out, or the consumer closes. The
 * caller owns the partition meanwhile: nothing after this record is processed until it returns,
 * which is what keeps per-key order through retries.
 */
export async function deliver<T>(params: DeliveryParams<T>): Promise<DeliveryOutcome> {
  const { record, topic, group, logger } = params;
  const fate = params.exhausted === 'skip' ? 'skipping it' : 'dead-lettering it';
  const where = { topic: record.topic, partition: record.partition, offset: record.offset, group };
  const attributes = readAttributes(record.headers, {
    ...where,
    type: topic.type,
    timestamp: record.timestamp,
  });

  const refused = params.verify?.(record);
  if (refused !== undefined) {
    logger.error({ ...where, eventId: attributes.id, reason: refused }, `refused record; ${fate}`);
    return { kind: 'dead-letter', attempts: 0, error: new RecordSignatureError(refused) };
  }

  for (let attempt = 1; ; attempt++) {
    let value: T | null;
    try {
      // Decoded per attempt so a handler that mutates the message cannot leak state into its retry.
      value = record.value === null ? null : params.topic.codec.decode(record.value);
    } catch (error) {
      // Retrying cannot fix bytes that do not parse: straight to the dead-letter topic.
      logger.error({ ...where, eventId: attributes.id, err: error }, `undecodable record; ${fate}`);
      return {
        kind: 'dead-letter',
        attempts: attempt - 1,
        error: new UndecodableRecordError(`cannot decode ${topic.type}: ${describeError(error)}`),
      };
    }

    const event = incomingEvent(record, attributes, value, attempt);
    const { span, context: spanContext } = startProcessSpan(
      params.system,
      spanAttributes(record, attributes.id, group, attempt),
      record.headers,
    );

    // kafkajs heartbeats only when told to: keep the member in its group while the handler runs
    // (a handler may wait seconds for another service), so the session can stay short.
    const stopKeepAlive = keepAliveWhile(params.keepAlive, logger, where);
    try {
      await context.with(spanContext, () => params.handler(event));
      stopKeepAlive();
      endSpan(span);
      return { kind: 'handled', attempts: attempt };
    } catch (error) {
      stopKeepAlive();
      endSpan(span, error);
      if (attempt >= params.maxAttempts) {
        logger.error(
          { ...where, eventId: attributes.id, attempt, err: error },
          `handler failed on its last attempt; ${fate}`,
        );
        return { kind: 'dead-letter', attempts: attempt, error };
      }
      const delayMs = backoffMs(params.retry, attempt);
      logger.warn(
        { ...where, eventId: attributes.id, attempt, delayMs, err: error },
        'handler failed; will retry',
      );
      if (!(await pause(delayMs, params.signal, params.keepAlive))) {
        return { kind: 'aborted', attempts: attempt };
      }
    }
  }
}

/** The event handed to the handler for one attempt at a record. */
function incomingEvent<T>(
  record: ReceivedRecord,
  attributes: CloudEventAttributes,
  value: T | null,
  attempt: number,
): IncomingEvent<T> {
  return {
    topic: record.topic,
    key: record.key,
    value,
    id: attributes.id,
    type: attributes.type,
    source: attributes.source,
    time: attributes.time,
    partition: record.partition,
    offset: record.offset,
    attempt,
    headers: { ...record.headers },
  };
}

/** What the process span of one attempt records. */
function spanAttributes(record: ReceivedRecord, id: string, group: string, attempt: number) {
  return {
    topic: record.topic,
    key: record.key,
    id,
    bodySize: record.value?.byteLength ?? 0,
    tombstone: record.value === null,
    partition: record.partition,
    offset: record.offset,
    group,
    attempt,
  };
}

/** Longest stretch between keep-alive calls while waiting (below any sane heartbeat interval). */
const KEEP_ALIVE_EVERY_MS = 1_000;

/**
 * Calls `keepAlive` every {@link KEEP_ALIVE_EVERY_MS} until the returned stop function is called.
 * A failing call is logged at debug and otherwise ignored: a rebalance it reports is met by the
 * keep-alive the consumer loop makes after the record, which is where kafkajs expects it to throw.
 */
function keepAliveWhile(
  keepAlive: (() => Promise<void>) | undefined,
  logger: BusLogger,
  where: Record<string, unknown>,
): () => void {
  if (!keepAlive) return () => {};
  let inFlight = false;
  const timer = setInterval(() => {
    if (inFlight) return;
    inFlight = true;
    keepAlive()
      .catch((error: unknown) =>
        logger.debug({ ...where, err: error }, 'keep-alive during a handler call failed'),
      )
      .finally(() => {
        inFlight = false;
      });
  }, KEEP_ALIVE_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** Waits `ms`; false when the signal aborted the wait. keep-alive errors propagate. */
async function pause(
  ms: number,
  signal: AbortSignal,
  keepAlive: (() => Promise<void>) | undefined,
): Promise<boolean> {
  let remaining = ms;
  while (remaining > 0) {
    if (signal.aborted) return false;
    const step = Math.min(remaining, KEEP_ALIVE_EVERY_MS);
    await sleep(step, signal);
    remaining -= step;
    if (signal.aborted) return false;
    if (keepAlive && remaining > 0) await keepAlive();
  }
  return !signal.aborted;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
