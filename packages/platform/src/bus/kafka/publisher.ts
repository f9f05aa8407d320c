/**
 * Publishing on the Kafka adapter: a call's events are encoded first (one that cannot be encoded
 * fails the call before anything is sent), each gets its CloudEvents headers, trace context and
 * signature and a publish span, and they go with `acks: -1` on the idempotent producer. Calls in
 * flight are tracked so `close()` waits for them.
 *
 * Calls share produce requests: those made in one turn of the event loop (an outbox pass's topics),
 * and those made while a request is on its way (the producer has one in flight at a time anyway),
 * go together in the next `sendBatch`, in call order. A broker's CPU goes by requests more than by
 * records. A shared request that fails for a reason that is not transient is sent again call by
 * call, so one call's bad topic (an ACL, a record too large) fails that call alone.
 */
import type { Message, TopicMessages } from 'kafkajs';
import { isTransientError } from '../../errors/transient.js';
import { attributesFor, cloudEventHeaders } from '../cloud-events.js';
import { endSpan, startPublishSpan } from '../tracing.js';
import type { OutgoingEvent, TopicDef } from '../types.js';
import type { KafkaClients } from './clients.js';
import { signedHeaders } from './signing.js';
import type { TopicPreparation } from './topic-preparation.js';

/** A call's records waiting for the next produce request, and how to settle the call. */
interface QueuedSend {
  topic: string;
  messages: Message[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class KafkaPublisher {
  readonly #clients: KafkaClients;
  readonly #topics: TopicPreparation;
  readonly #inFlight = new Set<Promise<void>>();
  /** Calls waiting for the next produce request. */
  #queued: QueuedSend[] = [];
  /** A flush is scheduled or under way: calls queue behind it. */
  #flushing = false;

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
    const { options } = this.#clients;
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
      await this.#enqueue(topic.name, messages);
    } catch (error) {
      for (const span of spans) endSpan(span, error);
      throw error;
    }
    for (const span of spans) endSpan(span);
  }

  /** Settles once the call's records are on the broker (or their request failed). */
  #enqueue(topic: string, messages: Message[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queued.push({ topic, messages, resolve, reject });
      if (this.#flushing) return;
      this.#flushing = true;
      // After this turn's other calls (an outbox pass publishes its topics in one turn).
      setImmediate(() => void this.#flush());
    });
  }

  /** Sends what is queued, one request at a time, until nothing is left. */
  async #flush(): Promise<void> {
    while (this.#queued.length > 0) {
      const sends = this.#queued;
      this.#queued = [];
      await this.#sendTogether(sends);
    }
    this.#flushing = false;
  }

  async #sendTogether(sends: QueuedSend[]): Promise<void> {
    const { producer } = this.#clients;
    try {
      if (sends.length === 1) {
        const [only] = sends as [QueuedSend];
        await producer.send({ topic: only.topic, acks: -1, messages: only.messages });
      } else {
        await producer.sendBatch({ acks: -1, topicMessages: topicMessagesOf(sends) });
      }
    } catch (error) {
      if (sends.length === 1 || isTransientError(error)) {
        for (const send of sends) send.reject(error);
        return;
      }
      // Which call's records the broker refused is not known: each call alone, in order.
      for (const send of sends) await this.#sendTogether([send]);
      return;
    }
    for (const send of sends) send.resolve();
  }
}

/** The calls' records per topic, each topic's in call order. */
function topicMessagesOf(sends: readonly QueuedSend[]): TopicMessages[] {
  const byTopic = new Map<string, Message[]>();
  for (const { topic, messages } of sends) {
    const list = byTopic.get(topic);
    if (list === undefined) byTopic.set(topic, [...messages]);
    else list.push(...messages);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}
