#!/usr/bin/env node
// `pnpm test`: every tier, in the order that fails fastest. Static checks, then unit and contract
// tests, then integration (each package alone on real Kafka + Mongo-wire server + stripe-mock),
// cross-service (several services in one process on the same servers), conformance, e2e (every
// service as its own process), the fault tier (the same stack on servers of its own, which it
// stops and restarts), the Python consumer, schemathesis, the browser, the Helm chart and one
// container image. Each vitest run writes a JSON report; the closing line sums them as
// "tests: N passed, N failed, N skipped". A step that names its report fails when the report
// counts no passed test: a tier that ran nothing does not pass.
//
// Every tier runs unless the user asks for fewer (`--tiers`, scripts/test-tiers.mjs); a tier that
// cannot run on this machine fails the run, before anything runs when a tool is missing, and
// inside the tier otherwise (MARQUEE_TEST_STRICT=1: its suites fail instead of skipping). Without
// KAFKA_BROKERS and MONGO_URL the run starts Kafka, FerretDB and stripe-mock of its own
// (deploy/local/infra.sh) and stops them at the end.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  NEEDS,
  TIERS,
  selectTiers,
  stepVerdict,
  unmetNeeds,
  runPassed,
  withoutTiers,
} from './test-tiers.mjs';

const root = new URL('..', import.meta.url).pathname;
const ci = process.env.CI === 'true' || process.env.CI === '1';

let selection;
try {
  selection = selectTiers(process.argv.slice(2), process.env);
} catch (error) {
  console.error(`pnpm test: ${error.message}`);
  process.exit(2);
}
const { tiers, dryRun } = selection;
if (selection.list) {
  for (const [tier, what] of Object.entries(TIERS)) {
    const needs = NEEDS[tier].length > 0 ? `  (needs: ${NEEDS[tier].join(', ')})` : '';
    console.log(`${tier.padEnd(14)} ${what}${needs}`);
  }
  process.exit(0);
}
const asked = (tier) => tiers.includes(tier);
const needed = (need) => tiers.some((tier) => NEEDS[tier].includes(need));

const reportDir = join(root, '.turbo', 'test-reports');
rmSync(reportDir, { recursive: true, force: true });
mkdirSync(reportDir, { recursive: true });

// Every tier this run was asked for must run: its suites fail instead of skipping (skipIsFailure,
// @marquee/platform/testing; deploy/helm/check.sh).
const env = {
  ...process.env,
  MARQUEE_TEST_REPORT_DIR: reportDir,
  MARQUEE_TEST_STRICT: '1',
  FORCE_COLOR: '0',
};
const have = (cmd) =>
  spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore', env }).status === 0;
const bash = (script, args, options = {}) =>
  spawnSync('bash', [join(root, script), ...args], {
    cwd: root,
    env,
    encoding: 'utf8',
    ...options,
  });

// ---------------------------------------------------------------------------------------------
// Tools: helm and kubeconform install themselves under ~/.cache/marquee; the rest is the machine's.

if (asked('helm') && !(have('helm') && have('kubeconform'))) {
  console.log('\n=== installing helm and kubeconform (deploy/local/install-k8s-tools.sh)');
  const r = bash('deploy/local/install-k8s-tools.sh', [], { stdio: ['ignore', 'pipe', 'inherit'] });
  const bin = r.stdout?.trim().split('\n').pop();
  if (r.status === 0 && bin) env.PATH = `${bin}:${env.PATH}`;
}

const infraConfigured = () => Boolean(env.KAFKA_BROKERS && env.MONGO_URL);
/** Why a requirement is not met here (how to meet it), or undefined. */
function missing(need) {
  switch (need) {
    case 'infra':
      // Not configured: started below (infra.sh reports what it lacks: Java, Maven, Go).
      if (!infraConfigured()) return undefined;
      return env.STRIPE_MOCK_URL
        ? undefined
        : 'STRIPE_MOCK_URL is unset while KAFKA_BROKERS and MONGO_URL are set: eval "$(bash deploy/local/infra.sh env)"';
    case 'prometheus': {
      const bin = env.PROMETHEUS_BIN ?? 'prometheus';
      return spawnSync(bin, ['--version'], { stdio: 'ignore', env }).status === 0
        ? undefined
        : `no Prometheus server (${bin}): apt-get install prometheus, or set PROMETHEUS_BIN`;
    }
    case 'python-venv':
      return spawnSync(env.PYTHON ?? 'python3', ['-c', 'import venv, ensurepip'], {
        stdio: 'ignore',
        env,
      }).status === 0
        ? undefined
        : 'python3 cannot make a venv: apt-get install python3-venv';
    case 'chromium': {
      const path = env.CHROMIUM_PATH ?? '/usr/bin/chromium';
      return existsSync(path)
        ? undefined
        : `no Chromium at ${path}: apt-get install chromium, or set CHROMIUM_PATH`;
    }
    case 'helm-tools':
      return have('helm') && have('kubeconform')
        ? undefined
        : 'helm and kubeconform: bash deploy/local/install-k8s-tools.sh failed (it needs Go and pip)';
    case 'promtool':
      return have('promtool') ? undefined : 'no promtool: apt-get install prometheus';
    case 'java':
      return have('java')
        ? undefined
        : 'no java (the Kafka tools): apt-get install openjdk-17-jdk-headless';
    case 'python-yaml':
      return spawnSync('python3', ['-c', 'import yaml'], { stdio: 'ignore', env }).status === 0
        ? undefined
        : 'python3 cannot import yaml (the chart check reads the rendered manifests): apt-get install python3-yaml';
    case 'image-tools':
      return have('podman') && have('mmdebstrap') && process.getuid?.() === 0
        ? undefined
        : 'needs root with podman and mmdebstrap: apt-get install podman buildah mmdebstrap';
    default:
      throw new Error(`unknown requirement ${need}`);
  }
}

// Under CI (.ci/run installs everything first) every tier runs and fails by itself if it must.
if (!ci) {
  const unmet = unmetNeeds(tiers, missing);
  if (unmet.length > 0) {
    console.error(
      `\npnpm test: ${unmet.length} of the tiers asked for cannot run on this machine:`,
    );
    for (const { tier, reasons } of unmet) console.error(`  ${tier}: ${reasons.join('; ')}`);
    console.error(
      `Install what they need, or leave them out: pnpm test ${withoutTiers(
        tiers,
        unmet.map((u) => u.tier),
      )}. Nothing was run.`,
    );
    process.exit(1);
  }
}

// ---------------------------------------------------------------------------------------------
// Infrastructure: the configured one, else servers of this run's own, stopped at the end.

const infraState = { started: [], stateDir: undefined };
function stopInfra() {
  const { started, stateDir } = infraState;
  infraState.started = [];
  for (const server of started)
    bash('deploy/local/infra.sh', ['stop', server], { stdio: 'ignore' });
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  infraState.stateDir = undefined;
}
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interrupted = true;
  });
}

if (needed('infra') && !infraConfigured()) {
  console.log(
    '\n=== starting Kafka, FerretDB and stripe-mock for this run (deploy/local/infra.sh; KAFKA_BROKERS and MONGO_URL are unset)',
  );
  const install = bash('deploy/local/infra.sh', ['install'], { stdio: 'inherit' });
  if (install.status !== 0) {
    const without = tiers.filter((tier) => NEEDS[tier].includes('infra'));
    console.error(
      `\npnpm test: deploy/local/infra.sh install failed (above: what it lacks); the tiers ${without.join(', ')} need it.` +
        ` Install it, or leave them out: pnpm test ${withoutTiers(tiers, without)}. Nothing was run.`,
    );
    process.exit(1);
  }
  // As .ci/run: servers already running on this machine's default state are used (and left
  // running); with none, this run's servers live in a fresh state directory, deleted at the end, so
  // what earlier runs left in Kafka's topics cannot slow this one.
  const before = bash('deploy/local/infra.sh', ['status'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const running = (before.stdout ?? '')
    .split('\n')
    .filter((line) => / running, ready/.test(line))
    .map((line) => line.split(':')[0]);
  if (running.length === 0) {
    infraState.stateDir = mkdtempSync(join(tmpdir(), 'marquee-test-state-'));
    env.MARQUEE_STATE = infraState.stateDir;
  }
  infraState.started = ['kafka', 'mongo', 'stripe'].filter((server) => !running.includes(server));
  const start = bash('deploy/local/infra.sh', ['start'], { stdio: 'inherit' });
  const exported = bash('deploy/local/infra.sh', ['env'], { stdio: ['ignore', 'pipe', 'inherit'] });
  if (start.status !== 0 || exported.status !== 0) {
    stopInfra();
    console.error('\npnpm test: starting the local servers failed (above). Nothing was run.');
    process.exit(1);
  }
  for (const line of exported.stdout.split('\n')) {
    const match = /^export ([A-Z_]+)=(.*)$/.exec(line);
    if (match) env[match[1]] = match[2].replace(/^'(.*)'$/, '$1');
  }
}

// ---------------------------------------------------------------------------------------------
// The steps of each tier.

/**
 * `report`: the vitest JSON report the step writes in reportDir; the step then fails unless that
 * report counts a passed test (stepVerdict, scripts/test-tiers.mjs).
 * @type {{tier: keyof typeof TIERS, name: string, cmd: string, report?: string}[]}
 */
const steps = [
  {
    tier: 'static',
    name: 'generated code is current, buf lint and breaking',
    cmd: 'bash scripts/check-generated.sh',
  },
  {
    // docs/api/asyncapi.yaml against the topic catalog and proto/, then its tests (AsyncAPI 3
    // validity, payload schemas against the messages, the schema image for analytics). The
    // tests run the generator as a child process and load the AsyncAPI parser: on a busy 2-core
    // runner that takes longer than vitest's default 5 s per test.
    tier: 'static',
    name: 'AsyncAPI contract of the Kafka topics is current and valid',
    cmd:
      'node scripts/generate-asyncapi.ts --check && pnpm -s exec vitest run scripts/generate-asyncapi.test.ts --test-timeout=60000' +
      ` --reporter=default --reporter=json --outputFile.json=${join(reportDir, 'asyncapi.json')}`,
    report: 'asyncapi.json',
  },
  {
    // docs/api/openapi.json against the edge's routes (built in process, no back end), then the
    // generator's own tests (each runs it as a child process: seconds on a busy runner) and every
    // example of the document against its schema (scripts/openapi-examples.test.ts).
    tier: 'static',
    name: 'OpenAPI contract of the public HTTP API is current',
    cmd:
      'node scripts/generate-openapi.ts --check && pnpm -s exec vitest run scripts/generate-openapi.test.ts scripts/openapi-examples.test.ts --test-timeout=120000' +
      ` --reporter=default --reporter=json --outputFile.json=${join(reportDir, 'openapi.json')}`,
    report: 'openapi.json',
  },
  {
    // packages/api-client's types and operation list, generated from docs/api/openapi.json.
    tier: 'static',
    name: 'API client types are current',
    cmd: 'node packages/api-client/scripts/generate-types.ts --check',
  },
  {
    // The Bruno collection (`pnpm bruno`, generated on demand) covers every operationId.
    tier: 'static',
    name: 'Bruno collection covers every operation of the OpenAPI document',
    cmd:
      'pnpm -s exec vitest run scripts/generate-bruno.test.ts --test-timeout=120000' +
      ` --reporter=default --reporter=json --outputFile.json=${join(reportDir, 'bruno.json')}`,
    report: 'bruno.json',
  },
  {
    // The Kafka ACLs the chart's kafka-acls Job and infra.sh apply, generated from the topic catalog.
    tier: 'static',
    name: 'Kafka ACLs of the Helm chart are current',
    cmd: 'node scripts/generate-kafka-acls.ts --check',
  },
  {
    // The Helm chart's NODE_OPTIONS, generated from the services' package.json `marquee.v8`.
    tier: 'static',
    name: 'V8 options of the Helm chart are current',
    cmd: 'node scripts/generate-node-options.ts --check',
  },
  {
    // The Helm chart's service calls, generated from each service's ServiceDefinition `calls`.
    tier: 'static',
    name: 'service calls of the Helm chart are current',
    cmd: 'node scripts/generate-service-calls.ts --check',
  },
  {
    // This script's tier selection and skip rule (scripts/test-tiers.mjs).
    tier: 'static',
    name: 'tier selection of pnpm test',
    cmd:
      'pnpm -s exec vitest run scripts/test-tiers.test.ts' +
      ` --reporter=default --reporter=json --outputFile.json=${join(reportDir, 'test-tiers.json')}`,
    report: 'test-tiers.json',
  },
  { tier: 'static', name: 'lint', cmd: 'pnpm -s lint' },
  {
    tier: 'static',
    name: 'typecheck',
    cmd: 'pnpm -s turbo run typecheck --output-logs=errors-only',
  },
  {
    tier: 'unit',
    name: 'unit and contract tests (memory adapters)',
    cmd: 'pnpm -s turbo run test:unit --output-logs=new-only',
  },
  {
    tier: 'integration',
    name: "each package's integration tests (real Kafka, Mongo-wire server and stripe-mock)",
    cmd: 'pnpm -s turbo run test:integration --concurrency=1 --output-logs=new-only',
  },
  {
    // test/integration: services composed together in the test process from their sources (cart
    // with 3p-connector and partner-reference; auth-gateway and secure-entry for a fan's deletion),
    // each on its own Kafka bus and database. A package's own integration tests start no other
    // service; what needs several lives here. Not a `test:integration` script, so the step above
    // does not run it a second time.
    tier: 'cross-service',
    name: 'cross-service integration tests (several services in process, real Kafka and Mongo-wire server)',
    cmd: 'pnpm -s --filter @marquee/tests test:cross-service',
    report: 'cross-service.json',
  },
  {
    // The 3P API kit against partner-reference (started in the test process, memory storage).
    tier: 'conformance',
    name: '3P API conformance (partner-reference against the contract)',
    cmd: 'pnpm -s --filter @marquee/tests test:conformance',
    report: 'conformance.json',
  },
  {
    tier: 'e2e',
    name: 'e2e tests (every service as its own process)',
    cmd: 'pnpm -s test:e2e',
    report: 'e2e.json',
  },
  {
    // test/fault: the stack as in e2e, on a Kafka broker and a FerretDB of its own (free ports, a
    // fresh state directory) that it stops, kills and restarts under a publishing load; ~3 minutes.
    tier: 'fault',
    name: 'fault tier (broker, consumer and Mongo-wire faults under load)',
    cmd: 'pnpm -s turbo run build --filter=./services/* --output-logs=errors-only && pnpm -s exec vitest run --config test/fault/vitest.config.ts',
    report: 'fault.json',
  },
  {
    // examples/python-consumer against the real Kafka; after e2e, whose services read event-changed.
    tier: 'python',
    name: 'Python consumer decodes event-changed (confluent-kafka, PyPI)',
    cmd: 'pnpm -s --filter @marquee/tests exec vitest run --config python/vitest.config.ts',
    report: 'python-consumer.json',
  },
  {
    // test/schemathesis: the embedded default (started in the test process, memory storage) fuzzed
    // by schemathesis 4 (PyPI, in a venv the step makes) with --checks all over every operation of
    // docs/api/openapi.json, a new seed each run (printed); a time budget of 390 s, about 7 minutes
    // with the embedded default's start (test/schemathesis/README.md, "Budget").
    tier: 'schemathesis',
    name: 'schemathesis: the public HTTP API against its OpenAPI document',
    cmd: 'pnpm -s --filter @marquee/tests exec vitest run --config schemathesis/vitest.config.ts',
    report: 'schemathesis.json',
  },
  {
    tier: 'browser',
    name: 'browser tests (OAuth pages in headless Chromium)',
    cmd: 'pnpm -s --filter @marquee/tests test:browser',
    report: 'browser.json',
  },
  {
    tier: 'helm',
    name: 'helm chart (helm lint, kubeconform -strict)',
    cmd: 'bash deploy/helm/check.sh',
  },
  {
    // The chart's topic Job script, rendered by helm and run against the local broker with
    // deploy/local/kafka/bin standing in for kafka-topics.sh/kafka-configs.sh/kafka-acls.sh, on the
    // open listener and, with kafkaAuth's client properties, on the SASL one, where the kafka-acls
    // Job's script runs too (two minutes or so: each call starts a JVM). Its own step, not in
    // check.sh, which needs no broker and no Java.
    tier: 'helm',
    name: 'helm chart topic and ACL Jobs against the local Kafka (open and SASL listeners)',
    cmd: 'bash deploy/helm/check-topic-job.sh',
  },
  {
    // deploy/images/build.sh for one service (it installs podman/mmdebstrap when root and missing):
    // base from Debian packages, pnpm deploy, podman build, then the service started from the
    // image's file system must answer /healthz (containers themselves may not start in a sandbox).
    tier: 'image',
    name: 'container image (publisher: build, then start from the image)',
    cmd: `bash deploy/images/build.sh ${infraConfigured() ? '--smoke-infra' : '--smoke'} publisher`,
  },
];

const results = [];
for (const step of steps.filter((s) => asked(s.tier))) {
  if (interrupted) break;
  console.log(`\n=== [${step.tier}] ${step.name}\n$ ${step.cmd}`);
  if (dryRun) continue;
  const started = Date.now();
  const r = spawnSync('sh', ['-c', step.cmd], { cwd: root, env, stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const reportFile = step.report && join(reportDir, step.report);
  const report =
    reportFile && existsSync(reportFile) ? JSON.parse(readFileSync(reportFile, 'utf8')) : undefined;
  const { status, reason } = stepVerdict(r.status === 0, step.report, report);
  const ok = status === 'ok';
  const why = reason ? `, ${reason}` : '';
  console.log(`=== ${ok ? 'ok' : 'FAILED'}: ${step.name} (${seconds}s${why})`);
  results.push({ tier: step.tier, step: `${step.name}${reason ? ` (${reason})` : ''}`, status });
  // A signal that arrived during the step is delivered here, between steps.
  await new Promise((resolve) => setImmediate(resolve));
  if (!ok && ci) break; // in CI, stop at the first broken tier: later ones would only add noise
}
stopInfra();

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
for (const r of results) console.log(`  ${r.status.padEnd(8)} [${r.tier}] ${r.step}`);
const notAsked = Object.keys(TIERS).filter((tier) => !asked(tier));
if (notAsked.length > 0) console.log(`  not asked for: ${notAsked.join(', ')}`);
if (interrupted) console.log('  interrupted: the remaining steps did not run');
if (dryRun) console.log('  dry run: no step was run');
const ok = runPassed(results) && !interrupted;
if (!ok && failed === 0) failed = 1; // a static check or a crashed runner counts as a failure
console.log(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(ok ? 0 : 1);
