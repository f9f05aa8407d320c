/**
 * Dead-lettering on the Kafka adapter: a record whose handler failed for good (or that did not
 * decode, or whose signature failed) goes to `<topic>.dlq` with its original key and value bytes,
 * untouched so it can be replayed as it was, and the `x-dlq-*` headers saying why and from where.
 * Only then is its offset committed; if the send fails, nothing is committed and it comes back.
 */
import type { KafkaMessage, Producer } from 'kafkajs';
import { countDeadLetter, countRefusedRecord } from '../bus-metrics.js';
import { deadLetterHeaders } from '../cloud-events.js';
import type { DeliveryOutcome, ReceivedRecord } from '../delivery.js';
import { RecordSignatureError } from '../record-signature.js';
import { dlqTopicName } from '../types.js';

export async function sendToDeadLetter(
  producer: Producer,
  group: string,
  record: ReceivedRecord,
  message: KafkaMessage,
  outcome: Extract<DeliveryOutcome, { kind: 'dead-letter' }>,
): Promise<void> {
  await producer.send({
    topic: dlqTopicName(record.topic),
    acks: -1,
    messages: [
      {
        key: message.key,
        value: message.value,
        headers: deadLetterHeaders(record.headers, {
          ...outcome,
          topic: record.topic,
          partition: record.partition,
          offset: record.offset,
        }),
      },
    ],
  });
  countDeadLetter(record.topic, group);
  if (outcome.error instanceof RecordSignatureError) countRefusedRecord(record.topic, group);
}
