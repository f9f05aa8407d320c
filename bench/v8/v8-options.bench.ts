/**
 * Do the V8 options the services declare (package.json `marquee.v8`) still do what they are there
 * for, on this Node? Each declared option is tried in a child process with and without it, and the
 * report says what changed; the exit status is 1 when one had no effect (run it after a Node
 * upgrade). Nothing here is a unit test: it allocates 600 MB and reads /proc.
 *
 *  - `--external-memory-accounted-in-global-limit` (runtime flag, set with v8.setFlagsFromString
 *    as runService does): 600 MB of 30 kB Buffers, the last hundred kept, as the edge and
 *    catalog-indexer answer; the flag counts them in the heap's global limit instead of starting a
 *    full marking for every 64 MB allocated. Measured: major collections.
 *  - `--v8-pool-size=N` (node option): the V8 background threads the process runs (/proc, Linux).
 *
 * Usage: pnpm --filter @marquee/bench v8   (after `pnpm -s turbo run build --filter=@marquee/bench...`)
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readV8Options } from '@marquee/platform/v8';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const declarations = readdirSync(`${repo}/services`).map((name) => ({
  name,
  v8: readV8Options(`${repo}/services/${name}`),
}));

const node = (args: string[]) =>
  execFileSync(process.execPath, args, {
    encoding: 'utf8',
    timeout: 120_000,
    // Only the options given here count.
    env: { ...process.env, NODE_OPTIONS: '' },
  }).trim();

const majorCollectionsProbe = `
const { PerformanceObserver, constants } = require('node:perf_hooks');
const flag = process.argv[1];
if (flag) require('node:v8').setFlagsFromString(flag);
let majors = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries())
    if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
}).observe({ entryTypes: ['gc'] });
(async () => {
  const kept = [];
  for (let i = 0; i < 20000; i++) {
    kept.push(Buffer.allocUnsafeSlow(30000));
    if (kept.length > 100) kept.shift();
    if (i % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  console.log(majors);
})();
`;
const v8WorkerThreadsProbe = `const fs = require('node:fs');
console.log(fs.readdirSync('/proc/self/task').filter((t) =>
  fs.readFileSync('/proc/self/task/' + t + '/comm', 'utf8').trim() === 'V8Worker').length)`;

interface Finding {
  option: string;
  declaredBy: string[];
  without: number;
  with: number;
  measured: string;
  effective: boolean;
}
const findings: Finding[] = [];
const declaredBy = (option: string) =>
  declarations
    .filter(({ v8 }) => [...v8.nodeOptions, ...v8.runtimeFlags].includes(option))
    .map(({ name }) => name);

const runtimeFlags = new Set(declarations.flatMap(({ v8 }) => v8.runtimeFlags));
for (const flag of runtimeFlags) {
  if (flag !== '--external-memory-accounted-in-global-limit') continue;
  const without = Number(node(['-e', majorCollectionsProbe]));
  const withFlag = Number(node(['-e', majorCollectionsProbe, flag]));
  findings.push({
    option: flag,
    declaredBy: declaredBy(flag),
    without,
    with: withFlag,
    measured: 'major collections while allocating 600 MB of 30 kB Buffers',
    effective: without >= 3 && withFlag * 2 <= without,
  });
}

const poolSizes = new Set(
  declarations.flatMap(({ v8 }) => v8.nodeOptions.filter((o) => o.startsWith('--v8-pool-size='))),
);
if (process.platform === 'linux') {
  for (const option of poolSizes) {
    const size = Number(option.split('=')[1]);
    const without = Number(node(['-e', v8WorkerThreadsProbe]));
    const withOption = Number(node([option, '-e', v8WorkerThreadsProbe]));
    findings.push({
      option,
      declaredBy: declaredBy(option),
      without,
      with: withOption,
      measured: 'V8 background threads (/proc/self/task)',
      effective: withOption === size && without !== size,
    });
  }
}

const notChecked = [
  ...new Set(declarations.flatMap(({ v8 }) => [...v8.nodeOptions, ...v8.runtimeFlags])),
].filter((option) => !findings.some((finding) => finding.option === option));
console.log(JSON.stringify({ node: process.version, findings, notChecked }, null, 2));
if (findings.some((finding) => !finding.effective)) process.exitCode = 1;
