/**
 * What every part of the Kafka adapter shares: the settings read from the options, the kafkajs
 * client with its one producer and one admin (each connected once, on first use, never after
 * close), the consumers it makes, and the bus's own state (open or closed, the abort signal that
 * cuts retry backoffs short, a group whose consumer died for good).
 */
import { Kafka, Partitioners, type Admin, type Consumer, type Producer } from 'kafkajs';
import {
  consumerTimingProblem,
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  DEFAULT_SESSION_TIMEOUT_MS,
} from '../consumer-timing.js';
import { retryPolicy, type RetryPolicy } from '../delivery.js';
import { KAFKAJS_LOG_LEVELS, kafkaLogCreator } from '../kafka-log.js';
import { stderrLogger, type BusLogger } from '../logger.js';
import { KAFKA_CLIENT_RETRY, type KafkaBusOptions } from './options.js';

export type BusState = 'created' | 'starting' | 'started' | 'closed';

/** How a consumer's crash is handled instead of by kafkajs's restart (global readers). */
export interface CrashHandling {
  restartOnFailure: (error: Error) => Promise<boolean>;
  onCrash: (error: Error) => void;
}

export class KafkaClients {
  readonly options: KafkaBusOptions;
  readonly logger: BusLogger;
  readonly retry: RetryPolicy;
  readonly readyTimeoutMs: number;
  readonly commitIntervalMs: number;
  readonly producer: Producer;
  readonly admin: Admin;
  /** Aborted at close: cuts retry backoffs and waits short. */
  readonly abort = new AbortController();
  state: BusState = 'created';
  /** A group whose consumer crashed and will not restart: the bus no longer consumes, so it is not ready. */
  deadGroup: string | undefined;
  readonly #kafka: Kafka;
  readonly #sessionTimeoutMs: number;
  readonly #heartbeatIntervalMs: number;
  #producerConnected: Promise<void> | undefined;
  #adminConnected: Promise<void> | undefined;

  constructor(options: KafkaBusOptions) {
    if (options.brokers.length === 0) throw new Error('createKafkaBus: brokers is empty');
    this.options = options;
    this.logger = options.logger ?? stderrLogger;
    this.retry = retryPolicy(options.retry);
    this.readyTimeoutMs = options.readyTimeoutMs ?? 2_000;
    this.commitIntervalMs = options.consumer?.commitIntervalMs ?? 500;
    this.#sessionTimeoutMs = options.consumer?.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
    this.#heartbeatIntervalMs =
      options.consumer?.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS;
    const timingProblem = consumerTimingProblem(this.#sessionTimeoutMs, this.#heartbeatIntervalMs);
    if (timingProblem !== undefined) {
      throw new Error(
        `createKafkaBus: consumer.heartbeatIntervalMs / consumer.sessionTimeoutMs: ${timingProblem}`,
      );
    }
    this.#kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      ...(options.ssl !== undefined ? { ssl: options.ssl } : {}),
      ...(options.sasl !== undefined ? { sasl: options.sasl } : {}),
      connectionTimeout: options.connectionTimeoutMs ?? 3_000,
      retry: KAFKA_CLIENT_RETRY,
      logLevel: KAFKAJS_LOG_LEVELS[options.kafkaLogLevel ?? 'warn'],
      logCreator: kafkaLogCreator(this.logger),
    });
    this.producer = this.#kafka.producer({
      idempotent: true,
      // An idempotent producer retries without limit (kafkajs's default for it; a limit would risk
      // its sequence numbers): a send waits out a broker restart, trying every 2 s at most.
      retry: { ...KAFKA_CLIENT_RETRY, retries: Number.MAX_SAFE_INTEGER },
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
      // Topics come from ensureTopics with the catalog's settings, never from a broker's defaults.
      allowAutoTopicCreation: false,
    });
    // No retries: ready() must answer within its deadline, and ensureTopics is retried by its callers.
    this.admin = this.#kafka.admin({ retry: { retries: 1 } });
  }

  get closed(): boolean {
    return this.state === 'closed';
  }

  assertOpen(): void {
    if (this.state === 'closed') throw new Error('event bus is closed');
  }

  /** Whether the admin client was ever asked to connect (and did not fail). */
  get adminConnected(): boolean {
    return this.#adminConnected !== undefined;
  }

  // Never (re)connect once closed: a late ready() probe must not leave a socket holding the process open.
  connectProducer(): Promise<void> {
    return (this.#producerConnected ??= (
      this.closed ? Promise.reject(new Error('event bus is closed')) : this.producer.connect()
    ).catch((error: unknown) => {
      this.#producerConnected = undefined;
      throw error;
    }));
  }

  connectAdmin(): Promise<void> {
    return (this.#adminConnected ??= (
      this.closed ? Promise.reject(new Error('event bus is closed')) : this.admin.connect()
    ).catch((error: unknown) => {
      this.#adminConnected = undefined;
      throw error;
    }));
  }

  /**
   * A consumer of group `id`. A group's consumer may batch its fetches and is restarted by kafkajs
   * after a retriable crash; a global reader's (`crash` given) fetches at once and handles its
   * crashes itself.
   */
  createConsumer(id: string, crash?: CrashHandling): Consumer {
    const consumer = this.#kafka.consumer({
      groupId: id,
      allowAutoTopicCreation: false,
      sessionTimeout: this.#sessionTimeoutMs,
      heartbeatInterval: this.#heartbeatIntervalMs,
      maxWaitTimeInMs: this.options.consumer?.maxWaitTimeMs ?? 1_000,
      ...(crash ? {} : { minBytes: this.options.consumer?.minBytes ?? 1 }),
      ...(crash
        ? { retry: { ...KAFKA_CLIENT_RETRY, restartOnFailure: crash.restartOnFailure } }
        : {}),
    });
    consumer.on(consumer.events.CRASH, (event) => {
      this.logger.error(
        { group: id, err: event.payload.error, restart: event.payload.restart },
        'Kafka consumer crashed',
      );
      if (crash) {
        crash.onCrash(event.payload.error);
        return;
      }
      // kafkajs restarts a consumer after a retriable crash by itself; a non-retriable one stays down.
      if (!event.payload.restart && !this.closed) this.deadGroup = id;
    });
    return consumer;
  }
}

export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
