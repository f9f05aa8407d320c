import { randomUUID } from 'node:crypto';
import { context, propagation } from '@opentelemetry/api';
import type { TopicDef } from '../bus/types.js';
import { currentCorrelationId } from '../logger/correlation.js';
import type { OutboxEvent } from './types.js';

export interface NewOutboxEvent<T> {
  key: string;
  /** The message; `null` writes a tombstone. */
  value: T | null;
  /** CloudEvents id; a fresh UUID when absent. */
  id?: string;
  /** When the fact happened; now when absent. */
  time?: Date;
  /** Defaults to the correlation id of the work in progress. */
  correlationId?: string;
}

/**
 * Builds an outbox event for a catalog topic: encodes the message now (the bytes stored are the bytes
 * published, so a later code change cannot alter an event already recorded) and captures the trace
 * context and correlation id of the write, which the relay, running later and elsewhere, could not know.
 */
export function createOutboxEvent<T>(
  topic: Pick<TopicDef<T>, 'name' | 'type' | 'codec'>,
  event: NewOutboxEvent<T>,
): OutboxEvent {
  const carrier: Record<string, string> = {};
  // A no-op unless a propagator is registered (the telemetry package registers W3C trace context).
  propagation.inject(context.active(), carrier);
  const correlationId = event.correlationId ?? currentCorrelationId();
  return {
    id: event.id ?? randomUUID(),
    topic: topic.name,
    key: event.key,
    type: topic.type,
    value: event.value === null ? null : topic.codec.encode(event.value),
    time: event.time ?? new Date(),
    ...(carrier.traceparent !== undefined ? { traceparent: carrier.traceparent } : {}),
    ...(carrier.tracestate !== undefined ? { tracestate: carrier.tracestate } : {}),
    ...(correlationId !== undefined ? { correlationId } : {}),
  };
}
