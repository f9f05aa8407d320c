import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readV8Options } from '@marquee/platform/v8';
import { describe, expect, it } from 'vitest';

// A package's V8 options are declared once, in its package.json (`marquee.v8`), and every launcher
// reads them there: the start scripts and the local stacks through the launch hook, the container
// image (deploy/images/build.sh) and the Helm chart (a generated file) for NODE_OPTIONS, runService
// and the embedded runner through ServiceDefinition.v8 (apps/embedded's unit tests). What V8
// does with them is measured by bench/v8, not here.
const repo = fileURLToPath(new URL('../..', import.meta.url));
const LAUNCH = '--import @marquee/platform/v8/launch --import @marquee/platform/telemetry/register';
const packages = ['services', 'packages', 'apps'].flatMap((dir) =>
  readdirSync(`${repo}/${dir}`).map((name) => `${dir}/${name}`),
);
// The processes that host services: every service and the embedded default (not the CLI).
const hosts = packages.filter((dir) => dir.startsWith('services/') || dir === 'apps/embedded');
const started = hosts.flatMap((dir) => {
  const manifest = JSON.parse(readFileSync(`${repo}/${dir}/package.json`, 'utf8')) as {
    scripts?: Record<string, string>;
  };
  return [[dir, manifest.scripts?.start ?? ''] as const];
});
const declared = packages.flatMap((dir) => readV8Options(`${repo}/${dir}`).nodeOptions);
const text = (file: string) => readFileSync(`${repo}/${file}`, 'utf8');

describe('V8 options, declared once', () => {
  it('are declared for the edge and catalog-indexer, and the embedded default hosts both', () => {
    expect(readV8Options(`${repo}/services/catalog-indexer`).nodeOptions).toContain(
      '--max-semi-space-size=16',
    );
    expect(readV8Options(`${repo}/services/edge-gateway`).runtimeFlags).toContain(
      '--external-memory-accounted-in-global-limit',
    );
    expect(readV8Options(`${repo}/apps/embedded`)).toEqual({
      nodeOptions: expect.arrayContaining([
        ...readV8Options(`${repo}/services/catalog-indexer`).nodeOptions,
      ]),
      runtimeFlags: ['--external-memory-accounted-in-global-limit'],
    });
  });

  it.each(started)(
    '%s: its start script launches through the hook and lists no V8 option',
    (_dir, start) => {
      expect(start).toContain(LAUNCH);
      for (const option of declared) expect(start).not.toContain(option.split('=')[0]);
      expect(start).not.toMatch(/--(max|v8|semi|external)[-_]/);
    },
  );

  it('the local stack and the e2e stack launch through the hook', () => {
    expect(text('deploy/local/stack.sh')).toMatch(
      /--import @marquee\/platform\/v8\/launch \\\n\s+--import @marquee\/platform\/telemetry\/register dist\/main\.js/,
    );
    expect(text('test/support/stack.ts')).toContain("'@marquee/platform/v8/launch',");
  });

  it('the container image and the Helm chart get NODE_OPTIONS from the declarations', () => {
    expect(text('deploy/images/build.sh')).toContain('readV8Options(`services/${name}`)');
    // The chart's file is generated; the check fails when a declaration changed without it.
    const check = spawnSync(process.execPath, ['scripts/generate-node-options.ts', '--check'], {
      cwd: repo,
      encoding: 'utf8',
    });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
    expect(text('deploy/helm/marquee/files/node-options.yaml')).toContain(
      `catalog-indexer: '${readV8Options(`${repo}/services/catalog-indexer`).nodeOptions.join(' ')}'`,
    );
    expect(text('deploy/helm/marquee/templates/_service.tpl')).toContain(
      '.Files.Get "files/node-options.yaml"',
    );
  });
});
