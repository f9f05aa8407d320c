import { describe, expect, it } from 'vitest';
import { exportersRequested } from '../../src/telemetry/index.js';

describe('exportersRequested', () => {
  it('asks for nothing when no variable is set (the SDK alone would default to OTLP)', () => {
    expect(exportersRequested({})).toEqual({ traces: false, metrics: false, logs: false });
  });

  it('follows each OTEL_*_EXPORTER, with none meaning none', () => {
    const sut = exportersRequested({
      OTEL_TRACES_EXPORTER: 'console',
      OTEL_METRICS_EXPORTER: 'none',
    });

    expect(sut).toEqual({ traces: true, metrics: false, logs: false });
  });

  it('treats an OTLP endpoint as a request for every signal, or for one with a per-signal endpoint', () => {
    expect(exportersRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      traces: true,
      metrics: true,
      logs: true,
    });
    expect(
      exportersRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }),
    ).toEqual({
      traces: true,
      metrics: false,
      logs: false,
    });
  });

  it('lets an explicit none win over an endpoint', () => {
    const sut = exportersRequested({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_LOGS_EXPORTER: 'none',
    });

    expect(sut.logs).toBe(false);
    expect(sut.traces).toBe(true);
  });
});
