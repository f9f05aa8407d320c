// The public HTTP API of the embedded default against its committed OpenAPI document, fuzzed by
// schemathesis 4 with every check (README.md of this directory: what it covers, how to run it).
import { spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@marquee/platform/logger';
import { startEmbedded, type EmbeddedMarquee } from '@marquee/embedded';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareSchemathesis, requirePython, stepDir } from './schemathesis-env.js';

const documentPath = fileURLToPath(new URL('../../docs/api/openapi.json', import.meta.url));
const canRun = requirePython();

/** Test cases per operation and phase, in each cycle of the run (README.md, "Budget"). */
const MAX_EXAMPLES = process.env.MARQUEE_SCHEMATHESIS_MAX_EXAMPLES ?? '50';
/**
 * The run's time budget in seconds: once every phase has run, fuzzing and stateful testing repeat
 * with new data until it is spent, so the step takes about this long on any machine.
 */
const MAX_TIME = process.env.MARQUEE_SCHEMATHESIS_MAX_TIME ?? '390';
/**
 * A new seed each run, so that CI explores further over time; printed first, so that a failure is
 * reproduced with `MARQUEE_SCHEMATHESIS_SEED=<seed>`.
 */
const SEED = process.env.MARQUEE_SCHEMATHESIS_SEED ?? String(randomInt(1, 2 ** 31));

/**
 * schemathesis' own output, kept whole beside the JSON test reports of `pnpm test` (the directory
 * `scripts/test.mjs` names; the same one, git-ignored, when this step runs alone).
 */
const reportPath = join(
  process.env.MARQUEE_TEST_REPORT_DIR ??
    fileURLToPath(new URL('../../.turbo/test-reports', import.meta.url)),
  'schemathesis-output.txt',
);

/**
 * schemathesis closes with a pytest-style banner (`=== 3 warnings in 106.21s ===`). In CI's log
 * that reads as a test runner that ran no test, so the printed copy turns each banner into a
 * plain heading; the file at `reportPath` keeps the original.
 */
function withoutClosingBanners(output: string): string {
  return output.replace(/^=+ (.+?) =+$/gm, '-- $1 --');
}

interface Run {
  code: number | null;
  output: string;
}

function runSchemathesis(bin: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd: stepDir, env: { ...process.env, ...env } });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe.skipIf(!canRun)('the public API against docs/api/openapi.json (schemathesis)', () => {
  let marquee: EmbeddedMarquee;
  let schemathesis: string;
  /** The credentials schemathesis uses (schemathesis.toml reads them from the environment). */
  const credentials: Record<string, string> = {};
  /**
   * The stack's error lines (a 5xx logs the error behind it; secrets are redacted by the logger),
   * the last 200, printed when schemathesis fails so that a 500 in CI says what threw.
   */
  const errorLines: string[] = [];
  const errorLog = {
    write(line: string) {
      errorLines.push(line.trimEnd());
      if (errorLines.length > 200) errorLines.shift();
    },
  };

  beforeAll(async () => {
    schemathesis = prepareSchemathesis();
    marquee = await startEmbedded({
      host: '127.0.0.1',
      port: 0,
      partnerPort: 0,
      logger: createLogger({ service: 'schemathesis-test', level: 'error', destination: errorLog }),
      // A webhook signing secret, as a deployment taking Stripe events has: the fuzzer's unsigned
      // events are then refused as the document says (400), not answered 503 "not configured".
      env: {
        LOG_LEVEL: 'error',
        STRIPE_WEBHOOK_SECRET: `whsec_${randomBytes(24).toString('hex')}`,
      },
    });
    const admin = async <T>(method: string, path: string, body: unknown): Promise<T> => {
      const response = await fetch(`${marquee.baseUrl}/admin/v1/${path}`, {
        method,
        headers: {
          authorization: `Bearer ${marquee.adminToken}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      });
      expect(response.status, `${method} ${path}: ${await response.clone().text()}`).toBeLessThan(
        300,
      );
      return (await response.json()) as T;
    };
    // An app of its own, with a quota the fuzzer cannot exhaust (the demo app's is 5 a second; the
    // 429 itself is covered by the edge's unit tests), approved for the commerce shopping services.
    const app = await admin<{ appId: string; apiKey: string; trackingId: string }>('POST', 'apps', {
      name: 'schemathesis',
      redirectUris: ['http://127.0.0.1:9/callback'],
      quota: { perDay: 1_000_000_000, perSecond: 1_000_000 },
    });
    await admin('PATCH', `apps/${app.appId}/access`, {
      commerceShopping: true,
      partnerDistribution: true,
    });
    // A gate for the gate API, on an event the demo partner's import brought.
    const events = (await (
      await fetch(`${marquee.baseUrl}/discovery/v2/events.json?size=1&apikey=${app.apiKey}`)
    ).json()) as { _embedded?: { events?: Array<{ id: string }> } };
    const eventId = events._embedded?.events?.[0]?.id ?? 'schemathesis-event';
    const gate = await admin<{ token: string }>('POST', 'gates', { name: 'schemathesis', eventId });
    Object.assign(credentials, {
      MARQUEE_API_KEY: app.apiKey,
      // The tracking pixel's credential: given, so that its answers are checked past the 401 and
      // its refusal of a missing or wrong id is probed (the fuzzer otherwise learns this public id
      // from the admin answers and sends it as if it had made it up).
      MARQUEE_TRACKING_ID: app.trackingId,
      MARQUEE_ADMIN_TOKEN: marquee.adminToken,
      MARQUEE_GATE_TOKEN: gate.token,
    });
  });

  afterAll(async () => {
    await marquee?.stop();
  });

  it('serves the committed document at /openapi.json', async () => {
    const served = await (await fetch(`${marquee.baseUrl}/openapi.json`)).json();
    expect(served).toEqual(JSON.parse(readFileSync(documentPath, 'utf8')));
  });

  it('answers every operation as the document says (schemathesis --checks all)', async () => {
    const args = [
      '--config-file',
      join(stepDir, 'schemathesis.toml'),
      'run',
      documentPath,
      '--url',
      marquee.baseUrl,
      '--checks',
      'all',
      '--max-examples',
      MAX_EXAMPLES,
      '--max-time',
      MAX_TIME,
      '--seed',
      SEED,
      // One worker: with two, Hypothesis parses sources in two threads at once, which CPython 3.11
      // can fail with "AST constructor recursion depth mismatch" (README.md, "One worker").
      '--workers',
      '1',
    ];
    console.log(`$ schemathesis ${args.join(' ')}`);
    console.log(
      `schemathesis: seed ${SEED} (reproduce with MARQUEE_SCHEMATHESIS_SEED=${SEED} MARQUEE_SCHEMATHESIS_MAX_EXAMPLES=${MAX_EXAMPLES} MARQUEE_SCHEMATHESIS_MAX_TIME=${MAX_TIME})`,
    );
    const started = Date.now();
    const { code, output } = await runSchemathesis(schemathesis, args, {
      ...credentials,
      NO_COLOR: '1',
    });
    mkdirSync(dirname(reportPath), { recursive: true });
    writeFileSync(reportPath, output);
    console.log(withoutClosingBanners(output));
    console.log(
      `schemathesis: seed ${SEED}, exit ${code} after ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    console.log(`schemathesis: full report in ${reportPath}`);
    // Under the time budget a slow or busy machine can cut the fuzzing phase short: say so loudly
    // (the run still counts; the coverage phase has checked every operation by then).
    const selected = /Operations:\s+(\d+) selected/.exec(output)?.[1];
    const fuzzed = /Fuzzing \(in [^)]*\)\s+\S+\s+(\d+) passed/.exec(output)?.[1];
    if (selected && fuzzed && Number(fuzzed) < Number(selected))
      console.log(
        `schemathesis: WARNING the time budget fuzzed ${fuzzed} of ${selected} operations (a busy machine); raise MARQUEE_SCHEMATHESIS_MAX_TIME to fuzz them all`,
      );
    if (code !== 0 && errorLines.length > 0)
      console.log(`the stack's last error lines:\n${errorLines.join('\n')}`);
    expect(code, 'schemathesis found failures (output above)').toBe(0);
  });
});
