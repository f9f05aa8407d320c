/**
 * Publishing on the Kafka adapter: a call's events are encoded first (one that cannot be encoded
 * fails the call before anything is sent), each gets its CloudEvents headers, trace context and
 * signature and a publish span, and they go in one `send` with `acks: -1` on the idempotent
 * producer. Calls in flight are tracked so `close()` waits for them.
 */
import type { Message } from 'kafkajs';
import { attributesFor, cloudEventHeaders } from '../cloud-events.js';
import { endSpan, startPublishSpan } from '../tracing.js';
import type { OutgoingEvent, TopicDef } from '../types.js';
import type { KafkaClients } from './clients.js';
import { signedHeaders } from './signing.js';
import type { TopicPreparation } from './topic-preparation.js';

export class KafkaPublisher {
  readonly #clients: KafkaClients;
  readonly #topics: TopicPreparation;
  readonly #inFlight = new Set<Promise<void>>();

  constructor(clients: KafkaClients, topics: TopicPreparation) {
    this.#clients = clients;
    this.#topics = topics;
  }

  async publish<T>(topic: TopicDef<T>, events: OutgoingEvent<T>[]): Promise<void> {
    this.#clients.assertOpen();
    if (events.length === 0) return;
    const sending = this.#send(topic, events);
    this.#inFlight.add(sending);
    try {
      await sending;
    } finally {
      this.#inFlight.delete(sending);
    }
  }

  /** Settles once every publish under way has (close). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#inFlight]);
  }

  async #send<T>(topic: TopicDef<T>, events: OutgoingEvent<T>[]): Promise<void> {
    const { options, producer } = this.#clients;
    await this.#topics.beforeUse(topic);
    await this.#clients.connectProducer();
    // Encode everything first: an event that cannot be encoded fails the call before anything is sent.
    const encoded = events.map((event) => ({
      event,
      value: event.value === null ? null : topic.codec.encode(event.value),
      attributes: attributesFor(topic, event, options.source),
    }));
    const spans = [];
    const messages: Message[] = [];
    for (const { event, value, attributes } of encoded) {
      const { span, traceHeaders } = startPublishSpan(
        'kafka',
        options.clientId,
        {
          topic: topic.name,
          key: event.key,
          id: attributes.id,
          bodySize: value?.byteLength ?? 0,
          tombstone: value === null,
        },
        event.headers,
      );
      spans.push(span);
      messages.push({
        key: event.key,
        value:
          value === null ? null : Buffer.from(value.buffer, value.byteOffset, value.byteLength),
        headers: signedHeaders(options.signatures, topic.name, event.key, value, {
          ...cloudEventHeaders(attributes, event.headers, value === null),
          ...traceHeaders,
        }),
        timestamp: String(attributes.time.getTime()),
      });
    }
    try {
      await producer.send({ topic: topic.name, acks: -1, messages });
    } catch (error) {
      for (const span of spans) endSpan(span, error);
      throw error;
    }
    for (const span of spans) endSpan(span);
  }
}
