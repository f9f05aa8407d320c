/**
 * The Kafka bus's life: `start()` connects the producer and admin, registers the lag gauge and
 * runs every consumer group and global reader registered so far (one registered later runs at
 * once, or once the start under way is done); `ready()` asks the cluster within the ready timeout;
 * `close()` stops consumers first (their handlers may still dead-letter through the producer),
 * deletes the global readers' groups, waits for publishes in flight, then disconnects.
 */
import { type KafkaClients, withTimeout } from './clients.js';
import type { ConsumerGroups } from './consumer-groups.js';
import { registerConsumerLag } from './consumer-lag.js';
import type { GlobalReader } from './global-readers.js';
import type { KafkaPublisher } from './publisher.js';

export class KafkaBusLifecycle {
  readonly #clients: KafkaClients;
  readonly #groups: ConsumerGroups;
  readonly #publisher: KafkaPublisher;
  readonly #readers: GlobalReader[] = [];
  #starting: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #stopLagGauge: (() => void) | undefined;

  constructor(clients: KafkaClients, groups: ConsumerGroups, publisher: KafkaPublisher) {
    this.#clients = clients;
    this.#groups = groups;
    this.#publisher = publisher;
  }

  addReader(reader: GlobalReader): void {
    this.#readers.push(reader);
  }

  /** After a subscription was registered: `run` it if the bus is started (or once it is). */
  async whenStarted(run: () => Promise<void>): Promise<void> {
    if (this.#clients.state === 'starting') await this.#starting;
    if (this.#clients.state === 'started') await run();
  }

  start(): Promise<void> {
    const clients = this.#clients;
    if (clients.closed) return Promise.reject(new Error('event bus is closed'));
    if (!this.#starting) {
      clients.state = 'starting';
      this.#starting = this.#startAll().then(
        () => {
          if (clients.state === 'starting') clients.state = 'started';
        },
        (error: unknown) => {
          // Allow another start() after a failed one (e.g. the broker was not up yet).
          if (clients.state === 'starting') clients.state = 'created';
          this.#starting = undefined;
          throw error;
        },
      );
    }
    return this.#starting;
  }

  async ready(): Promise<boolean> {
    const clients = this.#clients;
    if (clients.closed || clients.deadGroup !== undefined) return false;
    const probe = (async () => {
      await clients.connectAdmin();
      await clients.admin.describeCluster();
    })();
    probe.catch(() => {}); // a probe that loses the race below must not become an unhandled rejection
    return withTimeout(probe, clients.readyTimeoutMs).then(
      () => true,
      () => false,
    );
  }

  close(): Promise<void> {
    this.#closing ??= this.#closeAll();
    return this.#closing;
  }

  async #startAll(): Promise<void> {
    const clients = this.#clients;
    await Promise.all([clients.connectProducer(), clients.connectAdmin()]);
    this.#stopLagGauge ??= registerConsumerLag(clients, this.#groups);
    for (const group of this.#groups.values()) await group.run();
    for (const reader of this.#readers) await reader.run();
  }

  async #closeAll(): Promise<void> {
    const clients = this.#clients;
    const { admin, producer, logger, readyTimeoutMs } = clients;
    clients.state = 'closed';
    this.#stopLagGauge?.();
    // Cut retry backoffs short; a handler already running finishes and is committed if it succeeds.
    clients.abort.abort();
    await this.#starting?.catch(() => {});
    // Consumers first: stopping drains their handlers, which may still dead-letter through the producer.
    const results = await Promise.allSettled([
      ...this.#groups.closeAll(),
      ...this.#readers.map((reader) => reader.close()),
    ]);
    // The global subscriptions' groups are empty now and hold no offsets: remove them at once.
    const started = this.#readers.filter((reader) => reader.started).flatMap((r) => r.groupIds);
    if (started.length > 0 && clients.adminConnected) {
      await withTimeout(admin.deleteGroups(started), readyTimeoutMs).catch((err: unknown) =>
        // The broker forgets an empty group without offsets anyway.
        logger.debug({ err, groups: started }, 'could not delete global subscription groups'),
      );
    }
    await this.#publisher.settled();
    results.push(...(await Promise.allSettled([producer.disconnect(), admin.disconnect()])));
    for (const result of results) {
      if (result.status === 'rejected')
        logger.warn({ err: result.reason }, 'error while closing the Kafka bus');
    }
  }
}
