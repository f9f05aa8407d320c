// The OpenAPI contract of the public HTTP API (scripts/generate-openapi.ts). Run by `pnpm test`
// (scripts/test.mjs) after the `--check` step; alone: `pnpm exec vitest run scripts/generate-openapi.test.ts`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const script = join(root, 'scripts/generate-openapi.ts');
const dir = mkdtempSync(join(tmpdir(), 'marquee-openapi-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (...args: string[]) =>
  spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: 'utf8' });

// Each run bundles the edge's routes and builds them: seconds on a busy machine.
const slow = { timeout: 120_000 };

describe('generate-openapi', slow, () => {
  it('writes the document of the routes, which --check then accepts', () => {
    const file = join(dir, 'openapi.json');
    const written = run('--file', file);
    expect(written.status, written.stderr).toBe(0);
    const document = JSON.parse(readFileSync(file, 'utf8')) as {
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/discovery/v2/events', '/admin/v1/apps', '/gate/v1/scans']),
    );
    expect(Object.keys(document.paths['/admin/v1/deals/{id}']!.put!.responses)).toEqual(
      expect.arrayContaining(['200', '400', '404', '409', '413', '414', '415', '500', '503']),
    );
    const checked = run('--check', '--file', file);
    expect(checked.status, checked.stderr).toBe(0);
    expect(checked.stdout).toContain('is up to date');
  });

  it('fails --check on a stale or missing document, and says how to fix it', () => {
    const stale = join(dir, 'stale.json');
    writeFileSync(stale, '{"openapi":"3.1.0","paths":{}}\n');
    for (const file of [stale, join(dir, 'missing.json')]) {
      const checked = run('--check', '--file', file);
      expect(checked.status, file).toBe(1);
      expect(checked.stderr).toContain("Run 'node scripts/generate-openapi.ts'");
    }
  });
});
