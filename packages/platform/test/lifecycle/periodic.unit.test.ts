import { describe, expect, it } from 'vitest';
import { pauseAfter, periodic } from '../../src/lifecycle/index.js';

describe('periodic', () => {
  it('pauses the interval after quick runs and backs off after slow ones', () => {
    expect(pauseAfter(5, 1_000, 0.2)).toBe(1_000);
    // A 1.5 s sweep at a 20 % duty cycle: 6 s of rest before the next.
    expect(pauseAfter(1_500, 1_000, 0.2)).toBe(6_000);
    expect(pauseAfter(1_500, 1_000, 1)).toBe(1_000);
  });

  it('never overlaps runs, keeps going after a failure, and stop waits for the run in progress', async () => {
    let active = 0;
    let overlapped = false;
    let runs = 0;
    const errors: unknown[] = [];
    const job = periodic(
      async () => {
        active += 1;
        overlapped ||= active > 1;
        runs += 1;
        await new Promise((resolve) => setTimeout(resolve, 5));
        active -= 1;
        if (runs === 1) throw new Error('first run fails');
      },
      { intervalMs: 1, maxDutyCycle: 1, onError: (error) => errors.push(error) },
    );
    job.start();
    while (runs < 3) await new Promise((resolve) => setTimeout(resolve, 2));
    await job.stop();
    const after = runs;
    await new Promise((resolve) => setTimeout(resolve, 30));

    expect(overlapped).toBe(false);
    expect(errors).toHaveLength(1);
    expect(active).toBe(0);
    expect(runs).toBe(after); // nothing ran after stop
  });

  it('refuses a duty cycle outside (0, 1]', () => {
    expect(() =>
      periodic(async () => undefined, { intervalMs: 1, maxDutyCycle: 0, onError: () => undefined }),
    ).toThrow(RangeError);
  });
});
