#!/usr/bin/env node
// Copy-paste gate of `pnpm lint` (lint:clones): jscpd over the hand-written TypeScript of
// services/, packages/ and apps/ (generated code excluded, `.jscpd.json`), failing when it finds
// more exact clones of 6 lines or more than MAX_CLONES. The limit only goes down: when a change
// removes clones, lower it to the new count in the same change.
//
//   node scripts/check-clones.mjs            check against the limit
//   node scripts/check-clones.mjs --list     also list every clone (file:lines, both sides)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Exact clones allowed today; lower it whenever a change removes some. */
const MAX_CLONES = 47;

const repo = fileURLToPath(new URL('..', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'marquee-jscpd-'));
try {
  const run = spawnSync(
    join(repo, 'node_modules', '.bin', 'jscpd'),
    ['--config', join(repo, '.jscpd.json'), '--output', out, 'services', 'packages', 'apps'],
    { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (run.status !== 0) {
    console.error(`jscpd failed (status ${run.status ?? run.signal})`);
    process.exit(2);
  }
  const report = JSON.parse(readFileSync(join(out, 'jscpd-report.json'), 'utf8'));
  const clones = report.duplicates;
  const outsideTests = clones.filter(
    (c) => !c.firstFile.name.includes('/test/') && !c.secondFile.name.includes('/test/'),
  ).length;
  const side = (f) => `${f.name}:${f.start}-${f.end}`;
  if (process.argv.includes('--list') || clones.length > MAX_CLONES) {
    for (const c of clones)
      console.log(`${c.lines} lines  ${side(c.firstFile)}  ${side(c.secondFile)}`);
  }
  const summary = `${clones.length} exact clones of 6+ lines (${outsideTests} outside tests, ${report.statistics.total.duplicatedLines} duplicated lines); limit ${MAX_CLONES}`;
  if (clones.length > MAX_CLONES) {
    console.error(`${summary}: extract the copies listed above into a shared helper.`);
    process.exit(1);
  }
  console.log(summary);
} finally {
  rmSync(out, { recursive: true, force: true });
}
