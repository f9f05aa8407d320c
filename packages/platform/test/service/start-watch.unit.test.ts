import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../src/logger/index.js';
import { watchStart } from '../../src/service/start-watch.js';

/** A logger that keeps what is written at info and warn. */
function recordingLogger() {
  const lines: Array<{ level: string; fields: Record<string, unknown>; msg: string }> = [];
  const write = (level: string) => (fields: Record<string, unknown>, msg: string) =>
    lines.push({ level, fields, msg });
  return { lines, logger: { info: write('info'), warn: write('warn') } as unknown as Logger };
}

describe('watchStart', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('logs each stage and warns, naming it, while one lasts past the limit', async () => {
    const { lines, logger } = recordingLogger();
    const start = watchStart(logger, { warnAfterMs: 10_000, everyMs: 5_000 });
    start.enter('event-bus');
    await vi.advanceTimersByTimeAsync(4_000);
    start.enter('mongo');
    expect(start.stage).toBe('mongo');
    // mongo has lasted 5 s at the first check: no warning yet.
    await vi.advanceTimersByTimeAsync(6_000);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
    await vi.advanceTimersByTimeAsync(5_000);
    await vi.advanceTimersByTimeAsync(5_000);
    const warnings = lines.filter((l) => l.level === 'warn');
    expect(warnings.map((w) => w.fields)).toEqual([
      { stage: 'mongo', stage_seconds: 11, start_seconds: 15 },
      { stage: 'mongo', stage_seconds: 16, start_seconds: 20 },
    ]);
    expect(warnings[0]!.msg).toBe('still starting: mongo has taken 11 s');
    expect(lines.filter((l) => l.level === 'info').map((l) => l.fields)).toEqual([
      { stage: 'event-bus' },
      { stage: 'mongo' },
    ]);

    // Started: silent from then on.
    start.done();
    expect(start.stage).toBeUndefined();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(2);
  });

  it('warns about each stage from its own start', async () => {
    const { lines, logger } = recordingLogger();
    const start = watchStart(logger, { warnAfterMs: 10_000, everyMs: 5_000 });
    start.enter('compose');
    await vi.advanceTimersByTimeAsync(9_000);
    start.enter('serve');
    await vi.advanceTimersByTimeAsync(9_000);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(lines.filter((l) => l.level === 'warn').map((l) => l.fields.stage)).toEqual(['serve']);
    start.done();
  });
});
