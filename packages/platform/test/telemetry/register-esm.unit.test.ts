/**
 * Proves that `node --import @marquee/platform/telemetry/register` instruments an ESM program: the
 * platform modules are compiled to JavaScript (as `dist/` would be), a fixture program is started
 * with the register module, and the spans it exports over OTLP/JSON are collected by a tiny HTTP
 * collector on loopback. It also proves that trace context crosses gRPC through metadata (the gRPC
 * instrumentation's job), that the logs carry the trace and correlation ids, and that nothing is
 * exported unless the OTEL_* variables ask for it.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPlatformSubset, Collector, logLines, runNode, SPAN_KIND } from './otlp-harness.js';

const fixture = fileURLToPath(new URL('./fixtures/esm-app.mjs', import.meta.url));
let distDir = '';

function startFixture(env: Record<string, string>) {
  return runNode(distDir, fixture, env);
}

beforeAll(async () => {
  distDir = await buildPlatformSubset('marquee-telemetry-test', [
    'telemetry/register.ts',
    'telemetry/index.ts',
    'http/index.ts',
    'grpc/index.ts',
    'logger/index.ts',
  ]);
}, 120_000);

describe('telemetry/register in an ESM program', () => {
  const collector = new Collector();
  let result: Awaited<ReturnType<typeof runNode>>;

  beforeAll(async () => {
    const port = await collector.start();
    result = await startFixture({
      OTEL_SERVICE_NAME: 'esm-probe',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port}/v1/traces`,
    });
  }, 60_000);
  afterAll(() => collector.stop());

  it('runs the program normally', () => {
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(logLines(result.stdout)).toContainEqual({ probe: 'response', body: { echoed: 'hi' } });
  });

  it('exports HTTP client, HTTP server, fastify and gRPC spans of one trace, named for the service', () => {
    const spans = collector.spans();
    const httpClient = spans.find(
      (s) => s.scope === '@opentelemetry/instrumentation-http' && s.kind === SPAN_KIND.CLIENT,
    );
    // fastify's request span is the server span; the HTTP instrumentation traces outgoing calls only.
    const httpServer = spans.find(
      (s) => s.kind === SPAN_KIND.SERVER && s.scope === '@fastify/otel',
    );
    const handler = spans.find(
      (s) => s.scope === '@fastify/otel' && s.parentSpanId === httpServer?.spanId,
    );
    const grpcClient = spans.find(
      (s) => s.scope === '@opentelemetry/instrumentation-grpc' && s.kind === SPAN_KIND.CLIENT,
    );
    const grpcServer = spans.find(
      (s) => s.scope === '@opentelemetry/instrumentation-grpc' && s.kind === SPAN_KIND.SERVER,
    );

    expect(httpServer?.name).toBe('GET /hello');
    expect(
      spans.filter((s) => s.kind === SPAN_KIND.SERVER && s.traceId === httpServer?.traceId),
    ).toHaveLength(2); // the request's and the gRPC call's
    // The server span continues the caller's trace: traceparent was read from the request headers.
    expect(httpServer?.parentSpanId).toBe(httpClient?.spanId);
    expect(handler).toBeDefined();
    expect(grpcClient?.name).toBe('grpc.marquee.probe.v1.Echo/Say');
    // Two requests, two traces: /hello's (with the gRPC call) and the OAuth one's.
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(2);
    expect(new Set(spans.map((s) => s.serviceName))).toEqual(new Set(['esm-probe']));
    // The server span is the client span's child: trace context travelled in gRPC metadata.
    expect(grpcServer?.parentSpanId).toBe(grpcClient?.spanId);
  });

  it('keeps api keys, order tokens and presale passwords out of every span attribute', () => {
    const oauthTrace = collector
      .spans()
      .find((s) => s.kind === SPAN_KIND.SERVER && s.name === 'GET /oauth/info/:token')?.traceId;
    // Every span but the fixture's own client span of its OAuth request: the platform masks
    // credentials in query strings of outgoing URLs, not in their paths (no service sends one).
    const spans = collector
      .spans()
      .filter((s) => !(s.traceId === oauthTrace && s.kind === SPAN_KIND.CLIENT));
    const attributes = JSON.stringify(spans.map((s) => s.attributes));
    const httpServer = spans.find(
      (s) => s.kind === SPAN_KIND.SERVER && s.scope === '@fastify/otel',
    );
    const value = (key: string) => httpServer?.attributes.find((a) => a.key === key)?.value;

    expect(attributes).toContain('apikey=');
    expect(String(value('url.query')?.stringValue)).toContain('size=1');
    expect(value('url.path')?.stringValue).toBe('/hello');
    const oauth = spans.find((s) => s.traceId === oauthTrace && s.kind === SPAN_KIND.SERVER);
    expect(oauth?.attributes.find((a) => a.key === 'url.path')?.value.stringValue).toBe(
      '/oauth/info/[REDACTED]',
    );
    expect(attributes).not.toContain('s3cr3t');
  });

  it('writes logs carrying the trace id and the correlation id across the gRPC hop', () => {
    const [traceId] = new Set(collector.spans().map((s) => s.traceId));
    const lines = logLines(result.stdout);
    const handlerLine = lines.find((line) => line.msg === 'calling echo');
    const grpcLine = lines.find((line) => line.msg === 'grpc call');

    expect(handlerLine?.trace_id).toBe(traceId);
    expect(handlerLine?.correlation_id).toEqual(expect.any(String));
    expect(grpcLine).toMatchObject({
      trace_id: traceId,
      correlation_id: handlerLine?.correlation_id,
      grpc_code: 'OK',
    });
    expect(handlerLine?.query).toMatchObject({ size: '1', displayId: '[REDACTED]' });
    expect(result.stdout).not.toContain('s3cr3t');
  });
});

describe('telemetry/register exports only when asked', () => {
  // The SDK's own default is OTLP to localhost:4318. A collector on that port shows whether
  // anything would have been sent there.
  const collector = new Collector();
  let listening = false;

  beforeAll(async () => {
    listening = await collector.start(4318).then(
      () => true,
      () => false,
    );
  });
  afterAll(() => collector.stop());

  it('sends nothing when no OTEL_* variable asks for an exporter, yet still traces the logs', async (context) => {
    if (!listening) context.skip('port 4318 is taken on this machine');

    const quiet = await startFixture({ SERVICE_NAME: 'esm-probe' });
    expect(quiet.code).toBe(0);
    expect(logLines(quiet.stdout).find((line) => line.msg === 'calling echo')?.trace_id).toMatch(
      /^[0-9a-f]{32}$/,
    );
    expect(collector.requests).toEqual([]);

    // Control: naming the exporter without an endpoint reaches the SDK default, this collector.
    const asked = await startFixture({ SERVICE_NAME: 'esm-probe', OTEL_TRACES_EXPORTER: 'otlp' });
    expect(asked.code).toBe(0);
    expect(collector.requests.map((request) => request.url)).toContain('/v1/traces');
  }, 60_000);

  it('does nothing at all with OTEL_SDK_DISABLED=true', async () => {
    const disabled = await startFixture({
      SERVICE_NAME: 'esm-probe',
      OTEL_SDK_DISABLED: 'true',
      OTEL_TRACES_EXPORTER: 'otlp',
    });

    expect(disabled.code).toBe(0);
    expect(logLines(disabled.stdout)).toContainEqual({ probe: 'response', body: { echoed: 'hi' } });
    expect(logLines(disabled.stdout).some((line) => 'trace_id' in line)).toBe(false);
  }, 60_000);
});
