import { randomUUID } from 'node:crypto';
import type { OutgoingEvent, TopicDef } from './types.js';

/**
 * Record headers of the CloudEvents Kafka protocol binding, binary content mode: the event's
 * attributes travel as `ce_`-prefixed headers and the record value is the bare protobuf message, so
 * analytics consumers need nothing but the published `.proto` files (docs/topics.md, Conventions).
 */
export const CE_SPECVERSION = 'ce_specversion';
export const CE_ID = 'ce_id';
export const CE_SOURCE = 'ce_source';
export const CE_TYPE = 'ce_type';
export const CE_TIME = 'ce_time';
export const CONTENT_TYPE = 'content-type';
export const PROTOBUF_CONTENT_TYPE = 'application/protobuf';
export const SPEC_VERSION = '1.0';

/** Headers a dead-lettered record gains; its original headers (ce_*, traceparent) are kept. */
export const DLQ_ERROR = 'x-dlq-error';
export const DLQ_ATTEMPTS = 'x-dlq-attempts';
export const DLQ_ORIGINAL_TOPIC = 'x-dlq-original-topic';
export const DLQ_ORIGINAL_PARTITION = 'x-dlq-original-partition';
export const DLQ_ORIGINAL_OFFSET = 'x-dlq-original-offset';

const TRACE_HEADERS = new Set(['traceparent', 'tracestate']);

/** Headers the bus owns; a caller's value for one of them is dropped. */
export function isReservedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith('ce_') || lower === CONTENT_TYPE || TRACE_HEADERS.has(lower);
}

/** The CloudEvents attributes of an outgoing event, defaults filled in. */
export interface CloudEventAttributes {
  id: string;
  source: string;
  type: string;
  time: Date;
}

export function attributesFor<T>(
  topic: TopicDef<T>,
  event: OutgoingEvent<T>,
  defaultSource: string,
): CloudEventAttributes {
  return {
    id: event.id ?? randomUUID(),
    source: event.source ?? defaultSource,
    type: topic.type,
    time: event.time ?? new Date(),
  };
}

/**
 * The headers of an outgoing record without the trace context (the caller injects that from the
 * publish span). Caller-supplied extras come first so the reserved ones always win.
 */
export function cloudEventHeaders(
  attributes: CloudEventAttributes,
  extra: Record<string, string> | undefined,
  isTombstone: boolean,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(extra ?? {})) {
    if (!isReservedHeader(name)) headers[name] = value;
  }
  headers[CE_SPECVERSION] = SPEC_VERSION;
  headers[CE_ID] = attributes.id;
  headers[CE_SOURCE] = attributes.source;
  headers[CE_TYPE] = attributes.type;
  headers[CE_TIME] = attributes.time.toISOString();
  // A tombstone has no data, so there is no data content type to declare.
  if (!isTombstone) headers[CONTENT_TYPE] = PROTOBUF_CONTENT_TYPE;
  return headers;
}

/**
 * Reads the CloudEvents attributes of a received record. Records written by something other than
 * this bus may lack them; rather than refuse such a record, fall back to values that still identify
 * it (its coordinates, the topic's declared type, the broker timestamp).
 */
export function readAttributes(
  headers: Record<string, string>,
  fallback: { topic: string; partition: number; offset: string; type: string; timestamp: Date },
): CloudEventAttributes {
  const time = headers[CE_TIME] ? new Date(headers[CE_TIME]) : fallback.timestamp;
  return {
    id: headers[CE_ID] ?? `${fallback.topic}/${fallback.partition}/${fallback.offset}`,
    source: headers[CE_SOURCE] ?? '',
    type: headers[CE_TYPE] ?? fallback.type,
    time: Number.isNaN(time.getTime()) ? fallback.timestamp : time,
  };
}

/** Longest error text carried in `x-dlq-error`; a header is no place for a stack or a body dump. */
const MAX_DLQ_ERROR_LENGTH = 1_000;

export function deadLetterHeaders(
  original: Record<string, string>,
  failure: { error: unknown; attempts: number; topic: string; partition: number; offset: string },
): Record<string, string> {
  const message = describeError(failure.error);
  return {
    ...original,
    [DLQ_ERROR]:
      message.length > MAX_DLQ_ERROR_LENGTH
        ? `${message.slice(0, MAX_DLQ_ERROR_LENGTH)}…`
        : message,
    [DLQ_ATTEMPTS]: String(failure.attempts),
    [DLQ_ORIGINAL_TOPIC]: failure.topic,
    [DLQ_ORIGINAL_PARTITION]: String(failure.partition),
    [DLQ_ORIGINAL_OFFSET]: failure.offset,
  };
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
