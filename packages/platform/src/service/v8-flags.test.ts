import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { applyV8Flags } from './v8-flags.js';

/**
 * A process that allocates 600 MB of 30 kB Buffers (keeping the last hundred) and prints how many
 * major collections it ran: with the flag set, external memory counts in the heap's global limit
 * instead of starting a full marking for every 64 MB allocated.
 */
const probe = `
import { PerformanceObserver, constants } from 'node:perf_hooks';
const { applyV8Flags, EXTERNAL_MEMORY_IN_GLOBAL_LIMIT } = await import(process.argv[1]);
if (process.argv[2] === 'on') applyV8Flags([EXTERNAL_MEMORY_IN_GLOBAL_LIMIT]);
let majors = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries())
    if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
}).observe({ entryTypes: ['gc'] });
const kept = [];
for (let i = 0; i < 20000; i++) {
  kept.push(Buffer.allocUnsafeSlow(30000));
  if (kept.length > 100) kept.shift();
  if (i % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
}
await new Promise((resolve) => setTimeout(resolve, 50));
console.log(majors);
`;
const majorCollections = (flag: 'on' | 'off') =>
  Number(
    execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        probe,
        fileURLToPath(new URL('./v8-flags.ts', import.meta.url)),
        flag,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    ).trim(),
  );

describe('applyV8Flags', () => {
  it('counts Buffers in the heap limit: far fewer major collections for the same Buffers', () => {
    const without = majorCollections('off');
    const withFlag = majorCollections('on');
    expect(without).toBeGreaterThanOrEqual(3);
    expect(withFlag * 2).toBeLessThanOrEqual(without);
  }, 120_000);

  it('refuses what is not a flag', () => {
    expect(() => applyV8Flags(['max-semi-space-size=16'])).toThrow('not a V8 flag');
    expect(() => applyV8Flags(['--x; rm -rf /'])).toThrow('not a V8 flag');
    expect(() => applyV8Flags(undefined)).not.toThrow();
  });
});
