import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';

/**
 * Spans and trace-context propagation for both bus adapters, through the OpenTelemetry API only:
 * with no SDK registered every call is a no-op, with the NodeSDK (`@marquee/platform/telemetry`)
 * the spans are recorded and the registered propagator (W3C trace context by default) writes
 * `traceparent`/`tracestate` into the record headers.
 *
 * The bus makes these spans itself, so kafkajs auto-instrumentation must stay disabled: it would
 * add a second pair of spans per record and overwrite `traceparent` with its own.
 */
const TRACER_NAME = '@marquee/platform/bus';

// Messaging semantic conventions (https://opentelemetry.io/docs/specs/semconv/messaging/kafka/).
// Copied rather than imported from the `incubating` entry point, which is unstable by design.
const MESSAGING_SYSTEM = 'messaging.system';
const MESSAGING_OPERATION_TYPE = 'messaging.operation.type';
const MESSAGING_OPERATION_NAME = 'messaging.operation.name';
const MESSAGING_DESTINATION_NAME = 'messaging.destination.name';
const MESSAGING_DESTINATION_PARTITION_ID = 'messaging.destination.partition.id';
const MESSAGING_CONSUMER_GROUP_NAME = 'messaging.consumer.group.name';
const MESSAGING_MESSAGE_ID = 'messaging.message.id';
const MESSAGING_MESSAGE_BODY_SIZE = 'messaging.message.body.size';
const MESSAGING_KAFKA_MESSAGE_KEY = 'messaging.kafka.message.key';
const MESSAGING_KAFKA_MESSAGE_TOMBSTONE = 'messaging.kafka.message.tombstone';
const MESSAGING_KAFKA_OFFSET = 'messaging.kafka.offset';
const MESSAGING_CLIENT_ID = 'messaging.client.id';
const DELIVERY_ATTEMPT = 'marquee.bus.attempt';

/** Which messaging system the spans describe: `kafka` for the real adapter, `marquee.memory` in process. */
export type MessagingSystem = 'kafka' | 'marquee.memory';

export interface RecordMeta {
  topic: string;
  key: string;
  id: string;
  /** Encoded size; never the payload itself (it may hold personal data). */
  bodySize: number;
  tombstone: boolean;
}

/**
 * Starts `<topic> publish` (kind PRODUCER). Its parent is the context carried by `parentHeaders`
 * when they hold a `traceparent` (an outbox relay republishing a stored event), else the active
 * context. Returns the span and the trace headers to put on the record.
 */
export function startPublishSpan(
  system: MessagingSystem,
  clientId: string,
  meta: RecordMeta,
  parentHeaders: Record<string, string> | undefined,
): { span: Span; traceHeaders: Record<string, string> } {
  const parent = parentHeaders?.['traceparent']
    ? propagation.extract(context.active(), parentHeaders)
    : context.active();
  const span = trace.getTracer(TRACER_NAME).startSpan(
    `${meta.topic} publish`,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        ...recordAttributes(system, meta),
        [MESSAGING_OPERATION_TYPE]: 'send',
        [MESSAGING_OPERATION_NAME]: 'publish',
        [MESSAGING_CLIENT_ID]: clientId,
      },
    },
    parent,
  );
  const traceHeaders: Record<string, string> = {};
  propagation.inject(trace.setSpan(parent, span), traceHeaders);
  return { span, traceHeaders };
}

/**
 * Starts `<topic> process` (kind CONSUMER) as a child of the producer's context read from the
 * record headers; the handler runs inside the returned context so its own spans (Mongo, gRPC,
 * further publishes) join the same trace.
 */
export function startProcessSpan(
  system: MessagingSystem,
  meta: RecordMeta & { partition: number; offset: string; group: string; attempt: number },
  headers: Record<string, string>,
): { span: Span; context: Context } {
  // From ROOT, not the active context: a consumer loop inherits whatever was active when it was
  // started, and that must not become the parent of every record it processes.
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const span = trace.getTracer(TRACER_NAME).startSpan(
    `${meta.topic} process`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        ...recordAttributes(system, meta),
        [MESSAGING_OPERATION_TYPE]: 'process',
        [MESSAGING_OPERATION_NAME]: 'process',
        [MESSAGING_DESTINATION_PARTITION_ID]: String(meta.partition),
        [MESSAGING_KAFKA_OFFSET]: Number(meta.offset),
        [MESSAGING_CONSUMER_GROUP_NAME]: meta.group,
        [DELIVERY_ATTEMPT]: meta.attempt,
      },
    },
    parent,
  );
  return { span, context: trace.setSpan(parent, span) };
}

export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
  }
  span.end();
}

function recordAttributes(system: MessagingSystem, meta: RecordMeta): Attributes {
  return {
    [MESSAGING_SYSTEM]: system,
    [MESSAGING_DESTINATION_NAME]: meta.topic,
    [MESSAGING_MESSAGE_ID]: meta.id,
    [MESSAGING_KAFKA_MESSAGE_KEY]: meta.key,
    [MESSAGING_MESSAGE_BODY_SIZE]: meta.bodySize,
    ...(meta.tombstone ? { [MESSAGING_KAFKA_MESSAGE_TOMBSTONE]: true } : {}),
  };
}
