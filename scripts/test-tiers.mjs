// The tiers of `pnpm test` (scripts/test.mjs), how a run picks some of them, and what each needs
// from the machine. Pure functions: scripts/test-tiers.test.ts checks them without running a tier.

/** Every tier, in the order `pnpm test` runs them, with what it covers. */
export const TIERS = /** @type {const} */ ({
  static: 'generated code and contracts are current, lint, typecheck',
  unit: 'unit and contract tests (memory adapters)',
  integration:
    "each package's integration tests against real Kafka, a Mongo-wire server and stripe-mock",
  'cross-service': 'several services in one process against real Kafka and a Mongo-wire server',
  conformance: 'the 3P API conformance kit against partner-reference',
  e2e: 'every service as its own process (Kafka, FerretDB, stripe-mock, Prometheus)',
  fault: 'broker, consumer and Mongo-wire faults under load (servers of its own)',
  python: 'the Python consumer of event-changed (PyPI, real Kafka)',
  schemathesis: 'the public HTTP API fuzzed against its OpenAPI document (PyPI)',
  browser: 'the OAuth pages in headless Chromium',
  helm: 'the Helm chart: helm lint, kubeconform, promtool, the topic Job against Kafka',
  image: 'one container image built and started (root, podman, mmdebstrap)',
});

/** @typedef {keyof typeof TIERS} Tier */

/**
 * What a tier needs from the machine besides Node and the dependencies. `infra` is Kafka (with its
 * authenticated listener), FerretDB and stripe-mock, configured (KAFKA_BROKERS, MONGO_URL,
 * STRIPE_MOCK_URL) or started by `pnpm test` itself.
 * @type {Record<Tier, readonly string[]>}
 */
export const NEEDS = {
  static: [],
  unit: [],
  integration: ['infra'],
  'cross-service': ['infra'],
  conformance: [],
  e2e: ['infra', 'prometheus'],
  fault: ['infra', 'java'],
  python: ['infra', 'python-venv'],
  schemathesis: ['python-venv'],
  browser: ['chromium'],
  helm: ['infra', 'helm-tools', 'promtool', 'java', 'python-yaml'],
  image: ['image-tools'],
};

export const USAGE = `usage: pnpm test [--tiers LIST] [--list] [--dry-run]
  --tiers LIST   run only these tiers: names separated by commas; a name with a leading '-'
                 leaves that tier out (alone, such names mean every other tier). Also
                 MARQUEE_TEST_TIERS=LIST. Default: every tier, and one that cannot run fails
                 the run.
  --list         print the tiers and what each needs, then exit
  --dry-run      check what the tiers need, start and stop the servers they need, and print
                 the steps without running them
tiers: ${Object.keys(TIERS).join(', ')}`;

/**
 * The tiers a run asks for: `--tiers LIST` (or `--tiers=LIST`) in `argv`, else MARQUEE_TEST_TIERS,
 * else all. `narrowed` is true when the user named tiers (even all of them).
 * @param {readonly string[]} argv the arguments after the script
 * @param {Record<string, string | undefined>} env
 * @returns {{ tiers: Tier[], narrowed: boolean, list: boolean, dryRun: boolean }}
 */
export function selectTiers(argv, env = {}) {
  /** @type {string | undefined} */
  let spec;
  let list = false;
  let dryRun = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') continue; // `pnpm test -- --tiers ...` passes it through on some versions
    if (arg === '--list') list = true;
    else if (arg === '--dry-run') dryRun = true;
    else if (arg === '--tiers') {
      spec = argv[++i];
      if (spec === undefined) throw new Error(`--tiers needs a list\n${USAGE}`);
    } else if (arg.startsWith('--tiers=')) spec = arg.slice('--tiers='.length);
    else throw new Error(`unknown argument '${arg}'\n${USAGE}`);
  }
  spec ??= env.MARQUEE_TEST_TIERS || undefined;
  const all = /** @type {Tier[]} */ (Object.keys(TIERS));
  if (spec === undefined) return { tiers: all, narrowed: false, list, dryRun };
  const names = spec
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0) throw new Error(`--tiers names no tier\n${USAGE}`);
  const unknown = names.map((n) => n.replace(/^-/, '')).filter((n) => n !== 'all' && !(n in TIERS));
  if (unknown.length > 0) throw new Error(`unknown tier(s): ${unknown.join(', ')}\n${USAGE}`);
  const included = names.filter((n) => !n.startsWith('-'));
  const excluded = new Set(names.filter((n) => n.startsWith('-')).map((n) => n.slice(1)));
  const base = included.length === 0 || included.includes('all') ? all : included;
  const tiers = all.filter((tier) => base.includes(tier) && !excluded.has(tier));
  if (tiers.length === 0) throw new Error(`--tiers ${spec} leaves no tier to run\n${USAGE}`);
  return { tiers, narrowed: true, list, dryRun };
}

/**
 * What the asked tiers need that this machine lacks: one line per tier that cannot run, naming
 * what to install. `missing(requirement)` answers undefined when the requirement is met, else
 * how to meet it.
 * @param {readonly Tier[]} tiers
 * @param {(requirement: string) => string | undefined} missing
 * @returns {{ tier: Tier, reasons: string[] }[]}
 */
export function unmetNeeds(tiers, missing) {
  return tiers
    .map((tier) => ({
      tier,
      reasons: NEEDS[tier].map((need) => missing(need)).filter((reason) => reason !== undefined),
    }))
    .filter(({ reasons }) => reasons.length > 0);
}

/**
 * The verdict of a run: it passes only when no step failed and no step of an asked tier was
 * skipped. Steps of tiers that were not asked for are not run and are no skip.
 * @param {readonly { status: 'ok' | 'failed' | 'skipped' }[]} results
 */
export function runPassed(results) {
  return results.every((result) => result.status === 'ok');
}

/**
 * The verdict of one step. A step that exits 0 and names its vitest JSON report passes only when
 * that report exists and counts a passed test: a tier whose config matched no file, whose suites
 * were all skipped, or whose report went elsewhere ran nothing and fails rather than passing
 * silently.
 * @param {boolean} exitedOk the step's command exited 0
 * @param {string | undefined} reportName the report the step writes, if it names one
 * @param {{ numPassedTests?: number } | undefined} report that report, parsed; undefined when absent
 * @returns {{ status: 'ok' | 'failed', reason?: string }}
 */
export function stepVerdict(exitedOk, reportName, report) {
  if (!exitedOk) return { status: 'failed' };
  if (reportName === undefined) return { status: 'ok' };
  if (report === undefined) return { status: 'failed', reason: `no report ${reportName}` };
  if (!((report.numPassedTests ?? 0) > 0))
    return { status: 'failed', reason: `ran no test (${reportName})` };
  return { status: 'ok' };
}

/**
 * The `--tiers` argument that runs the asked tiers but the given ones: what to suggest when those
 * cannot run.
 * @param {readonly Tier[]} asked
 * @param {readonly Tier[]} leftOut
 */
export function withoutTiers(asked, leftOut) {
  const rest = asked.filter((tier) => !leftOut.includes(tier));
  return rest.length > 0 ? `--tiers ${rest.join(',')}` : '';
}
