#!/usr/bin/env node
// `pnpm test`: every tier this machine can run, in the order that fails fastest.
// Static checks, then unit and contract tests, then integration (real Kafka + Mongo-wire
// server), then e2e (every service as its own process), then the fault tier (the same stack on
// servers of its own, which it stops and restarts). Each vitest run writes a JSON report;
// the closing line sums them as "tests: N passed, N failed, N skipped".
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const reportDir = join(root, '.turbo', 'test-reports');
rmSync(reportDir, { recursive: true, force: true });
mkdirSync(reportDir, { recursive: true });

const env = { ...process.env, MARQUEE_TEST_REPORT_DIR: reportDir, FORCE_COLOR: '0' };
const ci = process.env.CI === 'true' || process.env.CI === '1';
const infra = Boolean(process.env.KAFKA_BROKERS && process.env.MONGO_URL);
const have = (cmd) =>
  spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

/** @type {{name: string, cmd: string, skip?: string}[]} */
const steps = [
  {
    name: 'generated code is current, buf lint and breaking',
    cmd: 'bash scripts/check-generated.sh',
  },
  {
    // docs/api/asyncapi.yaml against the topic catalog and proto/, then its tests (AsyncAPI 3
    // validity, payload schemas against the messages, the schema image for analytics). The
    // tests run the generator as a child process and load the AsyncAPI parser: on a busy 2-core
    // runner that takes longer than vitest's default 5 s per test.
    name: 'AsyncAPI contract of the Kafka topics is current and valid',
    cmd:
      'node scripts/generate-asyncapi.ts --check && pnpm -s exec vitest run scripts/generate-asyncapi.test.ts --test-timeout=60000' +
      ` --reporter=default --reporter=json --outputFile.json=${join(reportDir, 'asyncapi.json')}`,
  },
  {
    // docs/api/openapi.json against the edge's routes (built in process, no back end), then the
    // generator's own tests (each runs it as a child process: seconds on a busy runner).
    name: 'OpenAPI contract of the public HTTP API is current',
    cmd:
      'node scripts/generate-openapi.ts --check && pnpm -s exec vitest run scripts/generate-openapi.test.ts --test-timeout=120000' +
      ` --reporter=default --reporter=json --outputFile.json=${join(reportDir, 'openapi.json')}`,
  },
  {
    // The Kafka ACLs the chart's kafka-acls Job and infra.sh apply, generated from the topic catalog.
    name: 'Kafka ACLs of the Helm chart are current',
    cmd: 'node scripts/generate-kafka-acls.ts --check',
  },
  {
    // The Helm chart's NODE_OPTIONS, generated from the services' package.json `marquee.v8`.
    name: 'V8 options of the Helm chart are current',
    cmd: 'node scripts/generate-node-options.ts --check',
  },
  {
    // The Helm chart's service calls, generated from each service's ServiceDefinition `calls`.
    name: 'service calls of the Helm chart are current',
    cmd: 'node scripts/generate-service-calls.ts --check',
  },
  { name: 'lint', cmd: 'pnpm -s lint' },
  { name: 'typecheck', cmd: 'pnpm -s turbo run typecheck --output-logs=errors-only' },
  {
    name: 'unit and contract tests (memory adapters)',
    cmd: 'pnpm -s turbo run test:unit --output-logs=new-only',
  },
  {
    name: 'integration tests (real Kafka and Mongo-wire server)',
    cmd: 'pnpm -s turbo run test:integration --concurrency=1 --output-logs=new-only',
    // Without infrastructure the suites still run and report themselves skipped (a failure under CI).
  },
  {
    // The 3P API kit against partner-reference (started in the test process, memory storage).
    name: '3P API conformance (partner-reference against the contract)',
    cmd: 'pnpm -s --filter @marquee/tests test:conformance',
  },
  {
    name: 'e2e tests (every service as its own process)',
    cmd: 'pnpm -s test:e2e',
    skip: existsSync(join(root, 'test', 'e2e', 'vitest.config.ts'))
      ? infra || ci
        ? undefined
        : 'KAFKA_BROKERS and MONGO_URL are not set: run `bash deploy/local/infra.sh start` and `eval "$(bash deploy/local/infra.sh env)"`'
      : 'no e2e suite yet',
  },
  {
    // test/fault: the stack as in e2e, on a Kafka broker and a FerretDB of its own (free ports, a
    // fresh state directory) that it stops, kills and restarts under a publishing load; ~3 minutes.
    name: 'fault tier (broker, consumer and Mongo-wire faults under load)',
    cmd: 'pnpm -s turbo run build --filter=./services/* --output-logs=errors-only && pnpm -s exec vitest run --config test/fault/vitest.config.ts',
    skip:
      infra || ci
        ? undefined
        : 'no local Kafka and FerretDB (KAFKA_BROKERS, MONGO_URL): run `bash deploy/local/infra.sh start` once; the tier starts servers of its own on other ports',
  },
  {
    // examples/python-consumer against the real Kafka; after e2e, whose services read event-changed.
    // Skips itself loudly without KAFKA_BROKERS or `python3 -m venv`, and fails under CI.
    name: 'Python consumer decodes event-changed (confluent-kafka, PyPI)',
    cmd: 'pnpm -s --filter @marquee/tests exec vitest run --config python/vitest.config.ts',
  },
  {
    // test/schemathesis: the embedded default (started in the test process, memory storage) fuzzed
    // by schemathesis 4 (PyPI, in a venv the step makes) with --checks all over every operation of
    // docs/api/openapi.json; 3-4 minutes. Skips itself loudly without `python3 -m venv`, fails under CI.
    name: 'schemathesis: the public HTTP API against its OpenAPI document',
    cmd: 'pnpm -s --filter @marquee/tests exec vitest run --config schemathesis/vitest.config.ts',
  },
  {
    // The suite skips itself loudly without Chromium, and fails under CI (test/browser/chromium.ts).
    name: 'browser tests (OAuth pages in headless Chromium)',
    cmd: 'pnpm -s --filter @marquee/tests test:browser',
  },
  {
    name: 'helm chart (helm lint, kubeconform -strict)',
    cmd: 'bash deploy/helm/check.sh',
    skip:
      have('helm') && have('kubeconform')
        ? undefined
        : ci
          ? undefined
          : 'helm/kubeconform not installed: bash deploy/local/install-k8s-tools.sh',
  },
  {
    // The chart's topic Job script, rendered by helm and run against the local broker with
    // deploy/local/kafka/bin standing in for kafka-topics.sh/kafka-configs.sh (about a minute: each
    // call starts a JVM). Its own step, not in check.sh, which needs no broker and no Java.
    name: 'helm chart topic Job against the local Kafka (creates, passes, refuses wrong partitions)',
    cmd: 'bash deploy/helm/check-topic-job.sh',
    skip:
      ci || (infra && have('helm') && have('java'))
        ? undefined
        : 'needs KAFKA_BROKERS, helm and java: `bash deploy/local/infra.sh install && bash deploy/local/infra.sh start`',
  },
  {
    // deploy/images/build.sh for one service (it installs podman/mmdebstrap when root and missing):
    // base from Debian packages, pnpm deploy, podman build, then the service started from the
    // image's file system must answer /healthz (containers themselves may not start in a sandbox).
    name: 'container image (publisher: build, then start from the image)',
    cmd: `bash deploy/images/build.sh ${infra ? '--smoke-infra' : '--smoke'} publisher`,
    skip:
      ci || (have('podman') && have('mmdebstrap') && process.getuid?.() === 0)
        ? undefined
        : 'needs root with podman and mmdebstrap: apt-get install -y podman buildah mmdebstrap',
  },
];

const results = [];
for (const step of steps) {
  if (step.skip) {
    console.log(`\n=== SKIPPED: ${step.name} — ${step.skip}`);
    results.push({ step: step.name, status: 'skipped' });
    continue;
  }
  console.log(`\n=== ${step.name}\n$ ${step.cmd}`);
  const started = Date.now();
  const r = spawnSync('sh', ['-c', step.cmd], { cwd: root, env, stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const ok = r.status === 0;
  console.log(`=== ${ok ? 'ok' : 'FAILED'}: ${step.name} (${seconds}s)`);
  results.push({ step: step.name, status: ok ? 'ok' : 'failed' });
  if (!ok && ci) break; // in CI, stop at the first broken tier: later ones would only add noise
}

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of readdirSync(reportDir).filter((f) => f.endsWith('.json'))) {
  const report = JSON.parse(readFileSync(join(reportDir, file), 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}

console.log('\nSummary');
for (const r of results) console.log(`  ${r.status.padEnd(8)} ${r.step}`);
const stepFailed = results.some((r) => r.status === 'failed');
if (stepFailed && failed === 0) failed = 1; // a static check or a crashed runner counts as a failure
console.log(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(stepFailed ? 1 : 0);
