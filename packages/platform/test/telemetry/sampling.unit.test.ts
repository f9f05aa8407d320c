import { context, isSpanContextValid, trace, TraceFlags } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shutdownTelemetry, startTelemetry } from '../../src/telemetry/index.js';

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
});
