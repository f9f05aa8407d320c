/**
 * A consumer-group subscription of the memory bus: joins its group on the topic (one member at a
 * time owns every partition), reads each partition from the group's committed offset (or, with
 * none, the start or the end as `fromBeginning` says), one record at a time per partition (or up to
 * `keysInParallel` of different keys, as the Kafka adapter does), and
 * commits a record only once its handler succeeded or it went to `<topic>.dlq` with the original
 * key, value and headers plus the `x-dlq-*` headers.
 */
import { countDeadLetter } from '../bus-metrics.js';
import { deadLetterHeaders } from '../cloud-events.js';
import { deliver, distinctKeyRun, type DeliveryOutcome } from '../delivery.js';
import { dlqTopicName, type EventHandler, type TopicDef } from '../types.js';
import type { MemoryRecord } from './broker.js';
import { limiter, type Limiter, type MemoryConsumerContext, toReceived } from './consumers.js';

export interface GroupSubscription {
  topic: TopicDef<unknown>;
  group: string;
  fromBeginning: boolean;
  maxAttempts: number;
  concurrency: number;
  /** Records of different keys of one partition handled at once (`SubscribeOptions`). */
  keysInParallel: number;
  handler: EventHandler<unknown>;
  running?: Promise<void>;
}

/** Consumes until the bus closes (or never, when the signal aborts while waiting to join). */
export async function consumeGroup(
  context: MemoryConsumerContext,
  subscription: GroupSubscription,
): Promise<void> {
  const { broker, signal } = context;
  const { topic, group } = subscription;
  const member = Symbol(group);
  const partitions = broker.ensureTopic(topic.name);
  if (!(await broker.join(group, topic.name, member, signal))) return;
  try {
    const limit = limiter(subscription.concurrency);
    await Promise.all(
      Array.from({ length: partitions }, (_, partition) =>
        consumePartition(context, subscription, partition, limit),
      ),
    );
  } finally {
    broker.leave(group, topic.name, member);
  }
}

async function consumePartition(
  context: MemoryConsumerContext,
  subscription: GroupSubscription,
  partition: number,
  limit: Limiter,
): Promise<void> {
  const { broker, signal, retry, logger } = context;
  const { topic, group } = subscription;
  const committed = broker.committedOffset(group, topic.name, partition);
  // Like `auto.offset.reset`: only a group with no committed offset looks at fromBeginning.
  let position =
    committed !== undefined
      ? Number(committed)
      : subscription.fromBeginning
        ? 0
        : broker.endOffset(topic.name, partition);

  while (!signal.aborted) {
    // Released records (retention `unconsumed`) are gone: resume at the oldest one held.
    position = Math.max(position, broker.startOffset(topic.name, partition));
    const held: MemoryRecord[] = [];
    while (held.length < subscription.keysInParallel) {
      const record = broker.read(topic.name, partition, position + held.length);
      if (!record) break;
      held.push(record);
    }
    if (held.length === 0) {
      await broker.waitForAppend(topic.name, signal);
      continue;
    }
    const taken = held.slice(
      0,
      distinctKeyRun(held, 0, subscription.keysInParallel, (r) => r.key),
    );
    // One slot of the subscription's `concurrency` per partition, as Kafka's partitions in parallel.
    const outcomes = await limit(() =>
      Promise.all(
        taken.map(async (record) => {
          if (signal.aborted) return { kind: 'aborted' as const, attempts: 0 };
          return deliver({
            system: 'marquee.memory',
            topic,
            group,
            record: toReceived(record),
            handler: subscription.handler,
            maxAttempts: subscription.maxAttempts,
            retry,
            signal,
            logger,
          });
        }),
      ),
    );
    // In offset order: a record is committed only after every record before it.
    for (const [i, outcome] of outcomes.entries()) {
      if (outcome.kind === 'aborted') return;
      if (outcome.kind === 'dead-letter') deadLetter(context, group, taken[i]!, partition, outcome);
      position += 1;
      broker.commit(group, topic.name, partition, position);
    }
  }
}

/** The record as it was, to `<topic>.dlq`, with why and from where. */
function deadLetter(
  { broker }: MemoryConsumerContext,
  group: string,
  record: MemoryRecord,
  partition: number,
  outcome: Extract<DeliveryOutcome, { kind: 'dead-letter' }>,
): void {
  broker.append(dlqTopicName(record.topic), {
    key: record.key,
    value: record.value,
    headers: deadLetterHeaders(record.headers, {
      ...outcome,
      topic: record.topic,
      partition,
      offset: record.offset,
    }),
  });
  countDeadLetter(record.topic, group);
}
