/**
 * Proves that `node --import @marquee/platform/telemetry/register` instruments an ESM program: the
 * platform modules are compiled to JavaScript (as `dist/` would be), a fixture program is started
 * with the register module, and the spans it exports over OTLP/JSON are collected by a tiny HTTP
 * collector on loopback. It also proves that trace context crosses gRPC through metadata (the gRPC
 * instrumentation's job), that the logs carry the trace and correlation ids, and that nothing is
 * exported unless the OTEL_* variables ask for it.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('../../', import.meta.url));
// Under node_modules so that the compiled files resolve the package's dependencies as dist/ would.
const buildDir = `${packageDir}node_modules/.cache/marquee-telemetry-test`;
const distDir = `${buildDir}/dist`;
const fixture = fileURLToPath(new URL('./fixtures/esm-app.mjs', import.meta.url));

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}
interface CollectedSpan extends OtlpSpan {
  scope: string;
  serviceName: unknown;
}

const SPAN_KIND = { SERVER: 2, CLIENT: 3 } as const;

function run(command: string, args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(command, args, { cwd: packageDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The environment without any OTEL_* the developer's shell may carry. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_')),
  );
  return { ...env, PLATFORM_DIST: distDir, ...extra };
}

class Collector {
  readonly requests: Array<{ url: string; body: string }> = [];
  private server: Server | undefined;

  async start(port = 0): Promise<number> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        this.requests.push({ url: request.url ?? '', body });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server?.once('error', reject);
      this.server?.listen(port, '127.0.0.1', resolve);
    });
    return (this.server.address() as AddressInfo).port;
  }

  spans(): CollectedSpan[] {
    return this.requests
      .filter((request) => request.url === '/v1/traces')
      .flatMap((request) => {
        const payload = JSON.parse(request.body) as {
          resourceSpans: Array<{
            resource: { attributes: OtlpSpan['attributes'] };
            scopeSpans: Array<{ scope: { name: string }; spans: OtlpSpan[] }>;
          }>;
        };
        return payload.resourceSpans.flatMap((resourceSpans) => {
          const serviceName = resourceSpans.resource.attributes.find(
            (a) => a.key === 'service.name',
          )?.value.stringValue;
          return resourceSpans.scopeSpans.flatMap((scopeSpans) =>
            scopeSpans.spans.map((span) => ({
              ...span,
              scope: scopeSpans.scope.name,
              serviceName,
            })),
          );
        });
      });
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

function logLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function startFixture(env: Record<string, string>) {
  return run(
    process.execPath,
    ['--import', `${distDir}/telemetry/register.js`, fixture],
    cleanEnv(env),
  );
}

beforeAll(async () => {
  // Compile only the modules the fixture uses (and what they import), not the whole package, so
  // that this test does not depend on the state of the package's other parts.
  mkdirSync(buildDir, { recursive: true });
  writeFileSync(
    `${buildDir}/tsconfig.json`,
    JSON.stringify({
      extends: `${packageDir}tsconfig.json`,
      compilerOptions: {
        noEmit: false,
        rootDir: `${packageDir}src`,
        outDir: distDir,
        declaration: false,
        declarationMap: false,
        sourceMap: false,
      },
      include: [],
      files: [
        'telemetry/register.ts',
        'telemetry/index.ts',
        'http/index.ts',
        'grpc/index.ts',
        'logger/index.ts',
      ].map((file) => `${packageDir}src/${file}`),
    }),
  );
  const tsc = await run(
    process.execPath,
    [`${packageDir}node_modules/typescript/bin/tsc`, '-p', `${buildDir}/tsconfig.json`],
    process.env,
  );
  if (tsc.code !== 0) throw new Error(`tsc failed:\n${tsc.stdout}${tsc.stderr}`);
}, 120_000);

describe('telemetry/register in an ESM program', () => {
  const collector = new Collector();
  let result: Awaited<ReturnType<typeof run>>;

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
    const httpServer = spans.find(
      (s) => s.scope === '@opentelemetry/instrumentation-http' && s.kind === SPAN_KIND.SERVER,
    );
    const fastifyRequest = spans.find((s) => s.scope === '@fastify/otel' && s.name === 'request');
    const grpcClient = spans.find(
      (s) => s.scope === '@opentelemetry/instrumentation-grpc' && s.kind === SPAN_KIND.CLIENT,
    );
    const grpcServer = spans.find(
      (s) => s.scope === '@opentelemetry/instrumentation-grpc' && s.kind === SPAN_KIND.SERVER,
    );

    expect(httpServer?.name).toBe('GET /hello');
    expect(fastifyRequest?.parentSpanId).toBe(httpServer?.spanId);
    expect(grpcClient?.name).toBe('grpc.marquee.probe.v1.Echo/Say');
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    expect(new Set(spans.map((s) => s.serviceName))).toEqual(new Set(['esm-probe']));
    // The server span is the client span's child: trace context travelled in gRPC metadata.
    expect(grpcServer?.parentSpanId).toBe(grpcClient?.spanId);
  });

  it('keeps api keys, order tokens and presale passwords out of every span attribute', () => {
    const spans = collector.spans();
    const attributes = JSON.stringify(spans.map((s) => s.attributes));
    const httpServer = spans.find(
      (s) => s.scope === '@opentelemetry/instrumentation-http' && s.kind === SPAN_KIND.SERVER,
    );
    const query = httpServer?.attributes.find((a) => a.key === 'url.query')?.value;

    expect(attributes).toContain('apikey=');
    expect(String(query?.stringValue)).toContain('size=1');
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
