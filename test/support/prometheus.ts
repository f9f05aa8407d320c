import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipIsFailure, waitFor } from '@marquee/platform/testing';
import { freePort } from './stack.js';

/**
 * A real Prometheus server (Debian's `prometheus` package, which CI installs for promtool) that
 * scrapes the given targets every second, on loopback, with its data in a temporary directory.
 * Missing binary: a loud skip locally, a failure under CI and in `pnpm test` (like missing Kafka).
 */
export interface Prometheus {
  url: string;
  /** An instant query's samples: labels and value. */
  query(expr: string): Promise<Array<{ metric: Record<string, string>; value: number }>>;
  stop(): Promise<void>;
}

export function requirePrometheus(): string | undefined {
  const binary = process.env.PROMETHEUS_BIN ?? 'prometheus';
  const probe = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  if (probe.status === 0) return binary;
  const message = `no Prometheus server (${binary}): install Debian's prometheus package or set PROMETHEUS_BIN`;
  if (skipIsFailure()) throw new Error(message);
  console.warn(`\n*** SKIPPED: ${message}\n`);
  return undefined;
}

export async function startPrometheus(
  binary: string,
  targets: Array<{ job: string; port: number }>,
): Promise<Prometheus> {
  const dir = await mkdtemp(join(tmpdir(), 'marquee-prometheus-'));
  const scrapeConfigs = targets
    .map(
      ({ job, port }) =>
        `  - job_name: '${job}'\n    static_configs:\n      - targets: ['127.0.0.1:${port}']`,
    )
    .join('\n');
  await writeFile(
    join(dir, 'prometheus.yml'),
    `global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n${scrapeConfigs}\n`,
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const output: string[] = [];
  const child: ChildProcess = spawn(
    binary,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const query: Prometheus['query'] = async (expr) => {
    const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await response.json()) as {
      status: string;
      error?: string;
      data?: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
    };
    if (body.status !== 'success') throw new Error(`prometheus query ${expr}: ${body.error}`);
    return body.data!.result.map((sample) => ({
      metric: sample.metric,
      value: Number(sample.value[1]),
    }));
  };
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited: ${output.join('')}`);
        const ready = await fetch(`${url}/-/ready`).catch(() => undefined);
        return ready?.status === 200 ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, description: 'Prometheus to be ready' },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, query, stop };
}
