/**
 * The memory bus's life and its consumers: subscriptions and global readers registered before
 * `start()` begin consuming then, those registered after at once; `close()` stops fetching, cuts
 * retry backoffs short and waits for every consumer (a handler already running is awaited and
 * committed if it succeeds). A consumer that throws is logged, never left unhandled.
 */
import type { MemoryConsumerContext } from './consumers.js';
import type { MemoryGlobalReader } from './global-reader.js';
import { consumeGroup, type GroupSubscription } from './group-consumer.js';

export class MemoryBusLifecycle {
  readonly #context: MemoryConsumerContext;
  readonly #abort: AbortController;
  readonly #subscriptions: GroupSubscription[] = [];
  readonly #readers: MemoryGlobalReader[] = [];
  #state: 'created' | 'started' | 'closed' = 'created';
  #closing: Promise<void> | undefined;

  constructor(context: Omit<MemoryConsumerContext, 'signal'>) {
    this.#abort = new AbortController();
    this.#context = { ...context, signal: this.#abort.signal };
  }

  assertOpen(): void {
    if (this.#state === 'closed') throw new Error('event bus is closed');
  }

  /** One subscription per group and topic on this bus. */
  assertNotSubscribed(group: string, topic: string): void {
    if (this.#subscriptions.some((s) => s.group === group && s.topic.name === topic)) {
      throw new Error(`group ${group} already subscribes to ${topic} on this bus`);
    }
  }

  addSubscription(subscription: GroupSubscription): void {
    this.#subscriptions.push(subscription);
    this.#context.broker.ensureTopic(subscription.topic.name);
    if (this.#state === 'started') this.#launch(subscription);
  }

  addReader(reader: MemoryGlobalReader): void {
    this.#readers.push(reader);
    this.#context.broker.ensureTopic(reader.topic.name);
    if (this.#state === 'started') this.#launchGlobal(reader);
  }

  async start(): Promise<void> {
    this.assertOpen();
    if (this.#state === 'started') return;
    this.#state = 'started';
    for (const subscription of this.#subscriptions) this.#launch(subscription);
    for (const reader of this.#readers) this.#launchGlobal(reader);
  }

  async ready(): Promise<boolean> {
    return this.#state === 'started';
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#state = 'closed';
      // Stops fetching and cuts retry backoffs short; a handler already running is awaited, and
      // committed if it succeeds.
      this.#abort.abort();
      await Promise.all([
        ...this.#subscriptions.map((subscription) => subscription.running),
        ...this.#readers.map((reader) => reader.running),
      ]);
    })();
    return this.#closing;
  }

  #launch(subscription: GroupSubscription): void {
    subscription.running = consumeGroup(this.#context, subscription).catch((error: unknown) => {
      this.#context.logger.error(
        { topic: subscription.topic.name, group: subscription.group, err: error },
        'memory consumer crashed',
      );
    });
  }

  #launchGlobal(reader: MemoryGlobalReader): void {
    reader.running = reader.consume(this.#context).catch((error: unknown) => {
      this.#context.logger.error(
        { topic: reader.topic.name, subscription: reader.name, err: error },
        'memory global consumer crashed',
      );
    });
  }
}
