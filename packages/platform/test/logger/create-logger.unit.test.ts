import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shutdownTelemetry, startTelemetry } from '../../src/telemetry/index.js';
import {
  createLogger,
  currentCorrelationId,
  isValidCorrelationId,
  runWithCorrelationId,
} from '../../src/logger/index.js';
import { logLines } from '../support/log-lines.js';

const capture = logLines;

describe('createLogger', () => {
  beforeAll(() => {
    // A real SDK with nothing exported: spans are not recorded, but the active span has valid ids.
    startTelemetry({ serviceName: 'logger-test', instrumentations: [], env: {} });
  });
  afterAll(() => shutdownTelemetry());

  it('writes JSON with the service, a level label and an ISO time', () => {
    const { stream, lines } = capture();
    const sut = createLogger({ service: 'deals', destination: stream });

    sut.info({ eventId: 'e1' }, 'hello');

    expect(lines[0]).toMatchObject({
      service: 'deals',
      level: 'info',
      msg: 'hello',
      eventId: 'e1',
    });
    expect(String(lines[0]?.time)).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(lines[0]).not.toHaveProperty('correlation_id');
    expect(lines[0]).not.toHaveProperty('trace_id');
  });

  it('adds the correlation id of the work in progress', async () => {
    const { stream, lines } = capture();
    const sut = createLogger({ service: 'deals', destination: stream });

    await runWithCorrelationId('corr-1', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      expect(currentCorrelationId()).toBe('corr-1');
      sut.info('inside');
    });
    sut.info('outside');

    expect(lines[0]).toMatchObject({ msg: 'inside', correlation_id: 'corr-1' });
    expect(lines[1]).not.toHaveProperty('correlation_id');
  });

  it('adds trace_id and span_id of the active span', () => {
    const { stream, lines } = capture();
    const sut = createLogger({ service: 'deals', destination: stream });

    const ids = trace.getTracer('test').startActiveSpan('work', (span) => {
      sut.info('in span');
      span.end();
      return span.spanContext();
    });

    expect(ids.traceId).not.toMatch(/^0+$/);
    expect(lines[0]).toMatchObject({ trace_id: ids.traceId, span_id: ids.spanId });
  });

  it('redacts secrets wherever services usually put them', () => {
    const { stream, lines } = capture();
    const sut = createLogger({ service: 'auth', destination: stream });

    sut.info(
      {
        req: {
          headers: {
            authorization: 'Bearer s3cr3t-bearer',
            'x-api-key': 's3cr3t-key',
            accept: 'json',
          },
        },
        password: 's3cr3t-password',
        body: { client_secret: 's3cr3t-client', grant_type: 'client_credentials' },
        partner: { credentials: { token: 's3cr3t-token' } },
      },
      'token exchange',
    );

    const line = JSON.stringify(lines[0]);
    expect(line).not.toContain('s3cr3t');
    expect(lines[0]).toMatchObject({
      req: { headers: { authorization: '[REDACTED]', 'x-api-key': '[REDACTED]', accept: 'json' } },
      body: { client_secret: '[REDACTED]', grant_type: 'client_credentials' },
    });
  });

  it("redacts order tokens, commerce's api-key and presale passwords (displayId)", () => {
    const { stream, lines } = capture();
    const sut = createLogger({ service: 'edge', destination: stream });

    sut.info(
      {
        query: { 'api-key': 's3cr3t-commerce-key', displayId: 's3cr3t-presale', size: 2 },
        body: { displayId: 's3cr3t-presale-body', passwords: ['s3cr3t-one'] },
        order_token: 's3cr3t-order',
        result: { orderToken: 's3cr3t-order-2', redemptionToken: 's3cr3t-redemption' },
      },
      'commerce request',
    );

    expect(JSON.stringify(lines[0])).not.toContain('s3cr3t');
    expect(lines[0]).toMatchObject({
      query: { 'api-key': '[REDACTED]', displayId: '[REDACTED]', size: 2 },
    });
  });
});

describe('isValidCorrelationId', () => {
  it.each([
    ['a uuid', '3f0c2a8e-2c9b-4a47-9f57-0d3f7d2f8b11', true],
    ['inner spaces', 'order 42 retry', true],
    ['128 characters', 'x'.repeat(128), true],
    ['129 characters', 'x'.repeat(129), false],
    ['empty', '', false],
    ['a line break', 'abc\r\nSet-Cookie: x', false],
    ['non-ASCII', 'caf\u00e9', false],
    ['leading space', ' abc', false],
  ])('%s → %s', (_label, value, expected) => {
    expect(isValidCorrelationId(value)).toBe(expected);
  });
});
