import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readV8Options, v8OptionsOf } from '@marquee/platform/v8';
import { describe, expect, it } from 'vitest';
import { hostedServices, hostedV8Options } from '../src/services.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

describe('V8 options of the embedded default', () => {
  it.each(hostedServices.map((service) => [service.name, service] as const))(
    '%s: its ServiceDefinition.v8 is its package.json declaration',
    (name, service) => {
      const manifest = JSON.parse(
        readFileSync(`${packageDir}/node_modules/@marquee/${name}/package.json`, 'utf8'),
      ) as unknown;
      expect(service.v8).toEqual(v8OptionsOf(manifest));
    },
  );

  it('sets the runtime flags of every hosted service, and the launch hook gives their node options', () => {
    const own = hostedV8Options();
    // What the start script's launch hook reads: this package's service dependencies.
    const read = readV8Options(packageDir);
    expect([...read.nodeOptions].sort()).toEqual([...own.nodeOptions].sort());
    expect([...read.runtimeFlags].sort()).toEqual([...own.runtimeFlags].sort());
    expect(own.runtimeFlags).toContain('--external-memory-accounted-in-global-limit');
    expect(own.nodeOptions).toContain('--max-semi-space-size=16');
  });
});
