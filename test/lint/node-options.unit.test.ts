import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A service's own V8 options live in its package.json (`marquee.nodeOptions`): the local stack, the
// e2e stack and the benchmarks read them there (nodeOptionsOf in test/support/stack.ts). Its start
// script and the Helm chart's NODE_OPTIONS must say the same.
const repo = fileURLToPath(new URL('../..', import.meta.url));
const manifests = ['services', 'packages'].flatMap((dir) =>
  readdirSync(`${repo}/${dir}`).map((name) => `${dir}/${name}`),
);
const withOptions = manifests
  .map((dir) => {
    const manifest = JSON.parse(readFileSync(`${repo}/${dir}/package.json`, 'utf8')) as {
      scripts?: Record<string, string>;
      marquee?: { nodeOptions?: string[] };
    };
    return { dir, manifest };
  })
  .filter(({ manifest }) => (manifest.marquee?.nodeOptions ?? []).length > 0);
const values = readFileSync(`${repo}/deploy/helm/marquee/values.yaml`, 'utf8');

/** The text of `services.<name>` in values.yaml (up to the next service). */
function serviceValues(name: string): string {
  const start = values.indexOf(`\n  ${name}:\n`);
  if (start < 0) return '';
  const next = values.slice(start + 1).search(/\n {2}[a-z0-9-]+:\n/);
  return next < 0 ? values.slice(start) : values.slice(start, start + 1 + next);
}

describe('per-service V8 options', () => {
  it('are set for catalog-indexer (the check has something to check)', () => {
    expect(withOptions.map(({ dir }) => dir)).toContain('services/catalog-indexer');
  });

  it.each(withOptions.map(({ dir, manifest }) => [dir, manifest] as const))(
    '%s: its start script has them',
    (_dir, manifest) => {
      const start = manifest.scripts?.start ?? '';
      for (const option of manifest.marquee!.nodeOptions!) expect(start).toContain(` ${option} `);
    },
  );

  it.each(
    withOptions
      .filter(({ dir }) => dir.startsWith('services/'))
      .map(({ dir, manifest }) => [dir.slice('services/'.length), manifest] as const),
  )('%s: the Helm chart gives them in NODE_OPTIONS', (name, manifest) => {
    const block = serviceValues(name);
    expect(block).not.toBe('');
    const match = /NODE_OPTIONS: '([^']*)'/.exec(block);
    expect(match?.[1]?.split(' ')).toEqual(manifest.marquee!.nodeOptions);
  });
});

// `--v8-pool-size=N`: how many background threads V8 gets (Node's default is 4). Counted in /proc:
// the test fails if Node stops honouring the option, whatever the manifests say.
const v8WorkerThreads = `console.log(require('node:fs').readdirSync('/proc/self/task').filter((t) =>
  require('node:fs').readFileSync('/proc/self/task/' + t + '/comm', 'utf8').trim() === 'V8Worker').length)`;
const withPoolSize = withOptions.flatMap(({ dir, manifest }) => {
  const option = manifest.marquee!.nodeOptions!.find((o) => o.startsWith('--v8-pool-size='));
  return option
    ? [[dir, manifest.marquee!.nodeOptions!, Number(option.split('=')[1])] as const]
    : [];
});

describe.runIf(process.platform === 'linux')('--v8-pool-size', () => {
  it('is set for the edge and catalog-indexer (the check has something to check)', () => {
    expect(withPoolSize.map(([dir]) => dir)).toEqual(
      expect.arrayContaining(['services/catalog-indexer', 'services/edge-gateway']),
    );
  });

  it.each(withPoolSize)(
    '%s: V8 runs as many background threads as it says',
    (_dir, options, size) => {
      // NODE_OPTIONS emptied: only the options given here count.
      const started = (nodeOptions: readonly string[]) =>
        Number(
          execFileSync(process.execPath, [...nodeOptions, '-e', v8WorkerThreads], {
            encoding: 'utf8',
            env: { ...process.env, NODE_OPTIONS: '' },
          }),
        );
      expect(started(options)).toBe(size);
      // Node's default (four threads) differs: the count shows the option took effect.
      expect(started([])).not.toBe(size);
    },
  );
});
