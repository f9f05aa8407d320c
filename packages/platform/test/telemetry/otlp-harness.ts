/**
 * What the telemetry tests share: compiling a subset of the platform to JavaScript (as a service's
 * `dist/` would hold it), starting a fixture program with `node --import <dist>/telemetry/register.js`,
 * and a tiny OTLP/JSON collector on loopback that keeps what the program exports.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('../../', import.meta.url));

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}
export interface CollectedSpan extends OtlpSpan {
  scope: string;
  serviceName: unknown;
}

export const SPAN_KIND = { SERVER: 2, CLIENT: 3 } as const;

export function run(command: string, args: string[], env: NodeJS.ProcessEnv) {
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

/**
 * Compiles `files` (paths under `src/`, with what they import) into
 * `node_modules/.cache/<name>/dist` and answers that directory. Under node_modules so that the
 * compiled files resolve the package's dependencies as `dist/` would; one name per test file, so
 * that test files running at once do not write over each other.
 */
export async function buildPlatformSubset(name: string, files: string[]): Promise<string> {
  const buildDir = `${packageDir}node_modules/.cache/${name}`;
  const distDir = `${buildDir}/dist`;
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
      files: files.map((file) => `${packageDir}src/${file}`),
    }),
  );
  const tsc = await run(
    process.execPath,
    [`${packageDir}node_modules/typescript/bin/tsc`, '-p', `${buildDir}/tsconfig.json`],
    process.env,
  );
  if (tsc.code !== 0) throw new Error(`tsc failed:\n${tsc.stdout}${tsc.stderr}`);
  return distDir;
}

/** The environment without any OTEL_* the developer's shell may carry. */
function cleanEnv(distDir: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_')),
  );
  return { ...env, PLATFORM_DIST: distDir, ...extra };
}

/** Runs `fixture` under the compiled telemetry register, with `env` on a clean environment. */
export function runNode(distDir: string, fixture: string, env: Record<string, string>) {
  return run(
    process.execPath,
    ['--import', `${distDir}/telemetry/register.js`, fixture],
    cleanEnv(distDir, env),
  );
}

export function logLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** An OTLP/HTTP JSON collector on loopback. */
export class Collector {
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

  /** The environment that sends a fixture's traces here. */
  static tracesTo(port: number, serviceName: string): Record<string, string> {
    return {
      OTEL_SERVICE_NAME: serviceName,
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port}/v1/traces`,
    };
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
