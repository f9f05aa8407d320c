import { context, isSpanContextValid, trace, TraceFlags } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mongoStatement, shutdownTelemetry, startTelemetry } from '../../src/telemetry/index.js';

describe('spans with no trace exporter asked for', () => {
  beforeAll(() => {
    startTelemetry({ serviceName: 'sampling-test', instrumentations: [], env: {} });
  });
  afterAll(() => shutdownTelemetry());

  it('records no span of a trace that starts here, yet gives it ids for logs and the next hop', () => {
    const span = trace.getTracer('test').startSpan('root');
    try {
      expect(span.isRecording()).toBe(false);
      expect(isSpanContextValid(span.spanContext())).toBe(true);
      expect(span.spanContext().traceFlags & TraceFlags.SAMPLED).toBe(0);
    } finally {
      span.end();
    }
  });

  it('records the span of a caller whose trace is sampled, so the trace goes on through here', () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const caller = trace.setSpanContext(context.active(), {
      traceId,
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
    const span = trace.getTracer('test').startSpan('child', {}, caller);
    try {
      expect(span.isRecording()).toBe(true);
      expect(span.spanContext().traceId).toBe(traceId);
      expect(span.spanContext().traceFlags & TraceFlags.SAMPLED).toBe(TraceFlags.SAMPLED);
    } finally {
      span.end();
    }
  });

  it('writes a MongoDB statement only under a recorded span, with its values masked', () => {
    const command = { find: 'carts', filter: { _id: 'cart-1', fanId: 'fan@example.org' } };
    const unsampled = trace.getTracer('test').startSpan('unsampled');
    const sampled = trace.getTracer('test').startSpan(
      'sampled',
      {},
      trace.setSpanContext(context.active(), {
        traceId: '0af7651916cd43dd8448eb211c80319d',
        spanId: 'b7ad6b7169203332',
        traceFlags: TraceFlags.SAMPLED,
        isRemote: true,
      }),
    );
    try {
      const under = (span: typeof sampled) =>
        context.with(trace.setSpan(context.active(), span), () => mongoStatement(command));
      expect(under(unsampled)).toBe('');
      expect(mongoStatement(command)).toBe('');
      expect(under(sampled)).toBe('{"find":"?","filter":{"_id":"?","fanId":"?"}}');
    } finally {
      unsampled.end();
      sampled.end();
    }
  });
});
