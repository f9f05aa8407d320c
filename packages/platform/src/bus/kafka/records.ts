/** A kafkajs message as the delivery loop (../delivery.ts) reads it. */
import type { IHeaders, KafkaMessage } from 'kafkajs';
import type { ReceivedRecord } from '../delivery.js';

export function toReceived(
  topic: string,
  partition: number,
  message: KafkaMessage,
): ReceivedRecord {
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key?.toString('utf8') ?? '',
    value: message.value,
    headers: headersToStrings(message.headers),
    timestamp: new Date(Number(message.timestamp)),
  };
}

/** kafkajs hands headers over as Buffers (arrays when a name repeats; the last one wins, as Java's `lastHeader`). */
function headersToStrings(headers: IHeaders | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers ?? {})) {
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    if (value !== undefined) result[name] = value.toString();
  }
  return result;
}
