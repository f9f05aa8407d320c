import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  applyV8Flags,
  mergeV8Options,
  missingNodeOptions,
  packageDirOf,
  readV8Options,
  v8OptionsOf,
} from '../../src/v8/index.js';

const catalog = {
  nodeOptions: ['--max-semi-space-size=16', '--v8-pool-size=1'],
  runtimeFlags: ['--external-memory-accounted-in-global-limit'],
};

describe('v8OptionsOf', () => {
  it('reads marquee.v8 and gives none without a declaration', () => {
    expect(v8OptionsOf({ marquee: { v8: catalog } })).toEqual(catalog);
    expect(v8OptionsOf({ marquee: { v8: { nodeOptions: ['--v8-pool-size=2'] } } })).toEqual({
      nodeOptions: ['--v8-pool-size=2'],
      runtimeFlags: [],
    });
    expect(v8OptionsOf({ name: 'x' })).toEqual({ nodeOptions: [], runtimeFlags: [] });
  });

  it('refuses what is not an option and keys it does not know, naming the file', () => {
    expect(() =>
      v8OptionsOf({ marquee: { v8: { nodeOptions: ['v8-pool-size=1'] } } }, 'a.json'),
    ).toThrow('a.json marquee.v8.nodeOptions: not a V8 option: v8-pool-size=1');
    expect(() => v8OptionsOf({ marquee: { v8: { runtimeFlags: ['--x; rm -rf /'] } } })).toThrow(
      'not a V8 option',
    );
    expect(() => v8OptionsOf({ marquee: { v8: { flags: [] } } })).toThrow('unknown keys: flags');
  });
});

describe('mergeV8Options', () => {
  it('takes each option once', () => {
    const edge = { nodeOptions: ['--max-semi-space-size=16'], runtimeFlags: catalog.runtimeFlags };
    expect(
      mergeV8Options([
        { name: 'catalog', v8: catalog },
        { name: 'edge', v8: edge },
      ]),
    ).toEqual(catalog);
  });

  it('refuses two values of one option, naming both packages', () => {
    expect(() =>
      mergeV8Options([
        { name: 'catalog', v8: catalog },
        { name: 'other', v8: { nodeOptions: ['--max_semi_space_size=32'], runtimeFlags: [] } },
      ]),
    ).toThrow('catalog declares --max-semi-space-size=16, other --max_semi_space_size=32');
  });
});

describe('missingNodeOptions', () => {
  it('is what neither the command line nor NODE_OPTIONS gives, under any value', () => {
    expect(missingNodeOptions(catalog.nodeOptions, [], undefined)).toEqual(catalog.nodeOptions);
    expect(missingNodeOptions(catalog.nodeOptions, ['--v8-pool-size=4'], '')).toEqual([
      '--max-semi-space-size=16',
    ]);
    expect(
      missingNodeOptions(catalog.nodeOptions, ['--import', 'x'], ' --max-semi-space-size=8  '),
    ).toEqual(['--v8-pool-size=1']);
  });
});

describe('readV8Options', () => {
  const root = mkdtempSync(join(tmpdir(), 'marquee-v8-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const pkg = (dir: string, manifest: object) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
  };

  it('merges a package with the @marquee packages it depends on (the services it hosts)', () => {
    const host = join(root, 'host');
    pkg(host, {
      name: '@marquee/host',
      dependencies: { '@marquee/a': 'workspace:*', '@marquee/b': 'workspace:*', zod: '1' },
    });
    pkg(join(host, 'node_modules/@marquee/a'), { marquee: { v8: catalog } });
    pkg(join(host, 'node_modules/@marquee/b'), {
      marquee: { v8: { nodeOptions: ['--max-old-space-size-percentage=75'] } },
    });
    expect(readV8Options(host)).toEqual({
      nodeOptions: [...catalog.nodeOptions, '--max-old-space-size-percentage=75'],
      runtimeFlags: catalog.runtimeFlags,
    });
    mkdirSync(join(host, 'dist'), { recursive: true });
    expect(packageDirOf(join(host, 'dist/main.js'))).toBe(host);
  });
});

describe('applyV8Flags', () => {
  it('refuses what is not a flag', () => {
    expect(() => applyV8Flags(['max-semi-space-size=16'])).toThrow('not a V8 flag');
    expect(() => applyV8Flags(['--x; rm -rf /'])).toThrow('not a V8 flag');
    expect(() => applyV8Flags(undefined)).not.toThrow();
  });
});
