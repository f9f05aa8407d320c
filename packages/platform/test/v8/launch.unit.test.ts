import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `node --import @marquee/platform/v8/launch <entry>` in a package that declares node options: the
 * process ends up with them on its command line, as the same process, whatever it was started with.
 */
const root = mkdtempSync(join(tmpdir(), 'marquee-launch-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
writeFileSync(
  join(root, 'package.json'),
  JSON.stringify({
    name: 'probe',
    marquee: { v8: { nodeOptions: ['--max-semi-space-size=16', '--v8-pool-size=1'] } },
  }),
);
mkdirSync(join(root, 'dist'));
writeFileSync(
  join(root, 'dist/main.cjs'),
  'console.log(JSON.stringify({ pid: process.pid, execArgv: process.execArgv, guard: process.env.MARQUEE_V8_RELAUNCHED ?? null }));',
);
// The sources are TypeScript imported as '.js' (what tsc emits); Node strips the types.
writeFileSync(
  join(root, 'ts-hooks.mjs'),
  `import { registerHooks } from 'node:module';
registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.includes('/src/'))
      specifier = specifier.slice(0, -3) + '.ts';
    return next(specifier, context);
  },
});`,
);
const launch = fileURLToPath(new URL('../../src/v8/launch.ts', import.meta.url));

const start = (options: string[], nodeOptions = '') => {
  const child = spawnSync(
    process.execPath,
    [...options, '--import', join(root, 'ts-hooks.mjs'), '--import', launch, 'dist/main.cjs'],
    { cwd: root, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: nodeOptions } },
  );
  expect(child.stderr).toBe('');
  const seen = JSON.parse(child.stdout) as { pid: number; execArgv: string[]; guard: null };
  return { ...seen, samePid: seen.pid === child.pid };
};

describe('the launch hook', () => {
  it('restarts the process with the options it lacks, keeping its id and its own options', () => {
    const seen = start(['--no-warnings']);
    expect(seen.execArgv.slice(0, 3)).toEqual([
      '--max-semi-space-size=16',
      '--v8-pool-size=1',
      '--no-warnings',
    ]);
    expect(seen.samePid).toBe(true);
    expect(seen.guard).toBeNull();
  });

  it('adds only what NODE_OPTIONS lacks, and leaves a value given there alone', () => {
    const seen = start([], '--max-semi-space-size=8');
    expect(seen.execArgv[0]).toBe('--v8-pool-size=1');
    expect(seen.execArgv).not.toContain('--max-semi-space-size=16');
  });

  it('does nothing when the process has them all', () => {
    const seen = start(['--v8-pool-size=1', '--max-semi-space-size=16']);
    expect(seen.execArgv.slice(0, 2)).toEqual(['--v8-pool-size=1', '--max-semi-space-size=16']);
    expect(seen.execArgv.filter((option) => option.startsWith('--v8-pool-size'))).toHaveLength(1);
  });
});
