import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { createLifecycle, runMain } from '../../src/lifecycle/index.js';
import { createLogger } from '../../src/logger/index.js';
import { logLines } from '../support/log-lines.js';

function testLogger() {
  const { stream, lines } = logLines();
  return { logger: createLogger({ service: 'test', destination: stream, level: 'debug' }), lines };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('createLifecycle', () => {
  it('stops in reverse registration order, one step at a time', async () => {
    const order: string[] = [];
    // A budget no loaded machine exhausts: this test is about order, not about the deadline.
    const sut = createLifecycle({ logger: testLogger().logger, timeoutMs: 10_000 });
    for (const name of ['telemetry', 'mongo', 'bus', 'http']) {
      sut.onStop(name, async () => {
        order.push(`${name}:start`);
        await sleep(5);
        order.push(`${name}:end`);
      });
    }

    const result = await sut.stop('test');

    expect(result).toEqual({ ok: true, failed: [], timedOut: [] });
    expect(order).toEqual([
      'http:start',
      'http:end',
      'bus:start',
      'bus:end',
      'mongo:start',
      'mongo:end',
      'telemetry:start',
      'telemetry:end',
    ]);
  });

  it('logs a failed step and still stops the rest', async () => {
    const { logger, lines } = testLogger();
    const stopped: string[] = [];
    const sut = createLifecycle({ logger, timeoutMs: 1_000 });
    sut.onStop('mongo', () => void stopped.push('mongo'));
    sut.onStop('bus', () => {
      throw new Error('broker gone');
    });
    sut.onStop('http', () => void stopped.push('http'));

    const result = await sut.stop('test');

    expect(result).toEqual({ ok: false, failed: ['bus'], timedOut: [] });
    expect(stopped).toEqual(['http', 'mongo']);
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'stop step failed',
        step: 'bus',
        err: expect.objectContaining({ message: 'broker gone' }),
      }),
    );
  });

  it('bounds the whole sequence by the budget and skips what no longer fits', async () => {
    const ran: string[] = [];
    // Real timers (a timer firing a millisecond early once let 'mongo' squeeze in). The budget is
    // wide enough that a stalled machine does not use it all up before 'bus' even starts.
    const sut = createLifecycle({ logger: testLogger().logger, timeoutMs: 500 });
    sut.onStop('mongo', () => void ran.push('mongo'));
    sut.onStop('bus', () => new Promise<void>(() => ran.push('bus'))); // never settles
    sut.onStop('http', () => void ran.push('http'));

    const started = Date.now();
    const result = await sut.stop('test');
    const elapsed = Date.now() - started;

    expect(result.ok).toBe(false);
    expect(result.timedOut).toEqual(['bus', 'mongo']);
    expect(ran).toEqual(['http', 'bus']);
    // It waited for the budget, then gave up on the step that never settles. The upper bound only
    // tells "gave up" from "waited for ever" (a loaded machine may fire the timer late).
    expect(elapsed).toBeGreaterThanOrEqual(495);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('gives a slow step only what is left of the budget', async () => {
    // Fake time: with real timers a loaded machine can make the first step itself outlast the budget.
    vi.useFakeTimers();
    try {
      const sut = createLifecycle({ logger: testLogger().logger, timeoutMs: 150 });
      sut.onStop('second', () => sleep(120)); // would fit alone, not after the first
      sut.onStop('first', () => sleep(80));

      const stopping = sut.stop('test');
      await vi.advanceTimersByTimeAsync(1_000);
      const result = await stopping;

      expect(result.timedOut).toEqual(['second']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('runs the steps once however many times stop is called', async () => {
    const step = vi.fn(async () => sleep(10));
    const sut = createLifecycle({ logger: testLogger().logger, timeoutMs: 10_000 });
    sut.onStop('only', step);

    const [first, second] = await Promise.all([sut.stop('SIGTERM'), sut.stop('SIGINT')]);
    const third = await sut.stop('again');

    expect(step).toHaveBeenCalledTimes(1);
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(sut.stopping).toBe(true);
  });

  it('runs a step registered after stopping began at once', async () => {
    const sut = createLifecycle({ logger: testLogger().logger, timeoutMs: 1_000 });
    await sut.stop('test');
    const late = vi.fn();

    sut.onStop('late', late);
    await sleep(1);

    expect(late).toHaveBeenCalledTimes(1);
  });
});

describe('handleSignals', () => {
  it('stops on SIGTERM and exits 0', async () => {
    const signals = new EventEmitter();
    const exit = vi.fn();
    const step = vi.fn();
    const sut = createLifecycle({ logger: testLogger().logger, timeoutMs: 1_000, signals, exit });
    sut.onStop('http', step);
    sut.handleSignals();

    signals.emit('SIGTERM', 'SIGTERM');
    await vi.waitFor(() => expect(exit).toHaveBeenCalled());

    expect(step).toHaveBeenCalledTimes(1);
    expect(exit).toHaveBeenCalledWith(0);
  });

  it('exits 1 when a step failed', async () => {
    const signals = new EventEmitter();
    const exit = vi.fn();
    const sut = createLifecycle({ logger: testLogger().logger, timeoutMs: 1_000, signals, exit });
    sut.onStop('bus', () => Promise.reject(new Error('nope')));
    sut.handleSignals();

    signals.emit('SIGINT', 'SIGINT');
    await vi.waitFor(() => expect(exit).toHaveBeenCalled());

    expect(exit).toHaveBeenCalledWith(1);
  });

  it('exits at once on a second signal', () => {
    const signals = new EventEmitter();
    const exit = vi.fn();
    const sut = createLifecycle({ logger: testLogger().logger, timeoutMs: 10_000, signals, exit });
    sut.onStop('stuck', () => new Promise<void>(() => undefined));
    const remove = sut.handleSignals();

    signals.emit('SIGTERM', 'SIGTERM');
    expect(exit).not.toHaveBeenCalled();
    signals.emit('SIGTERM', 'SIGTERM');

    expect(exit).toHaveBeenCalledWith(1);
    remove();
    expect(signals.listenerCount('SIGTERM')).toBe(0);
  });
});

describe('runMain', () => {
  it('logs a start failure as one fatal line, stops what started and exits 1', async () => {
    const { logger, lines } = testLogger();
    const exit = vi.fn();
    const stopped = vi.fn();

    await runMain(
      async (lifecycle) => {
        lifecycle.onStop('bus', stopped);
        throw new Error('invalid configuration: MONGO_URL is required but not set');
      },
      { logger, exit, signals: new EventEmitter() },
    );

    expect(exit).toHaveBeenCalledWith(1);
    expect(stopped).toHaveBeenCalledTimes(1);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'fatal',
        msg: 'failed to start: invalid configuration: MONGO_URL is required but not set',
      }),
    );
  });

  it('leaves a started service running and uses the logger main configures', async () => {
    const bootstrap = testLogger();
    const configured = testLogger();
    const signals = new EventEmitter();
    const exit = vi.fn();

    await runMain(
      async (lifecycle) => {
        lifecycle.configure({ logger: configured.logger, timeoutMs: 5_000 });
        lifecycle.onStop('http', () => undefined);
      },
      { logger: bootstrap.logger, exit, signals },
    );
    expect(exit).not.toHaveBeenCalled();

    signals.emit('SIGTERM', 'SIGTERM');
    await vi.waitFor(() => expect(exit).toHaveBeenCalledWith(0));
    expect(configured.lines).toContainEqual(
      expect.objectContaining({ msg: 'stopping', reason: 'SIGTERM', timeoutMs: 5_000 }),
    );
    expect(bootstrap.lines).toEqual([]);
  });
});
