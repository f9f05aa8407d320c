/**
 * Publishing on the memory bus: every event of a call is encoded (with its CloudEvents headers,
 * trace context and publish span) before any is appended, so a publish is all or nothing, as one
 * Kafka produce request. Records are not signed: signatures are the Kafka adapter's.
 */
import { attributesFor, cloudEventHeaders } from '../cloud-events.js';
import { endSpan, startPublishSpan } from '../tracing.js';
import type { OutgoingEvent, TopicDef } from '../types.js';
import type { MemoryBroker } from './broker.js';

export function publishToBroker<T>(
  broker: MemoryBroker,
  source: { source: string; clientId: string },
  topic: TopicDef<T>,
  events: OutgoingEvent<T>[],
): void {
  // Encode everything before appending anything: a publish is all or nothing, as one produce request.
  const prepared = events.map((event) => {
    const value = event.value === null ? null : topic.codec.encode(event.value);
    const attributes = attributesFor(topic, event, source.source);
    const { span, traceHeaders } = startPublishSpan(
      'marquee.memory',
      source.clientId,
      {
        topic: topic.name,
        key: event.key,
        id: attributes.id,
        bodySize: value?.byteLength ?? 0,
        tombstone: value === null,
      },
      event.headers,
    );
    const headers = {
      ...cloudEventHeaders(attributes, event.headers, value === null),
      ...traceHeaders,
    };
    return { key: event.key, value, headers, span };
  });
  for (const { key, value, headers, span } of prepared) {
    broker.append(topic.name, { key, value, headers });
    endSpan(span);
  }
}
