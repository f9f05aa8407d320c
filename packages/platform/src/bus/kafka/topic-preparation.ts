/**
 * What happens to a topic before its first publish or consumer: created with its `.dlq` twin
 * (`topics.autoCreate`, the default), checked against the catalog (`topics.verify`), or nothing.
 * Once per topic per bus; a failure is forgotten so the next publish or start tries again.
 */
import { ensureTopics, verifyTopics, type TopicSpec } from '../ensure-topics.js';
import type { KafkaClients } from './clients.js';

export class TopicPreparation {
  /** What happens to a topic before its first use: created, checked, or nothing. */
  readonly mode: 'create' | 'verify' | 'none';
  readonly #clients: KafkaClients;
  readonly #ensured = new Map<string, Promise<void>>();

  constructor(clients: KafkaClients) {
    this.#clients = clients;
    const topics = clients.options.topics;
    this.mode =
      (topics?.autoCreate ?? true) ? 'create' : (topics?.verify ?? true) ? 'verify' : 'none';
  }

  /** Prepares the topic before its first use, unless the bus leaves topics alone. */
  async beforeUse(topic: TopicSpec): Promise<void> {
    if (this.mode !== 'none') await this.once(topic);
  }

  /** Creates (or checks) the topic once per bus, whatever the mode. */
  once(topic: TopicSpec): Promise<void> {
    let pending = this.#ensured.get(topic.name);
    if (!pending) {
      pending = this.#prepare(topic);
      this.#ensured.set(topic.name, pending);
      // Forget a failure so the next publish or start tries again.
      pending.catch(() => this.#ensured.delete(topic.name));
    }
    return pending;
  }

  async #prepare(topic: TopicSpec): Promise<void> {
    const { admin, logger, options } = this.#clients;
    await this.#clients.connectAdmin();
    if (this.mode === 'verify') {
      const { warnings } = await verifyTopics(admin, [topic]);
      for (const warning of warnings) logger.warn({ topic: topic.name }, warning);
      return;
    }
    const created = await ensureTopics(admin, [topic], options.topics);
    if (created.length > 0) logger.info({ topics: created }, 'created Kafka topics');
  }
}
