import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger/index.js';
import { watchMonitor } from '../../src/mongo/monitor-watchdog.js';

const logger = createLogger({ service: 'watchdog-test', level: 'silent' });

/** A MongoClient's heartbeat events and its close / connect, counted. */
class FakeClient extends EventEmitter {
  closes = 0;
  connects = 0;
  connectFails = false;
  async close(): Promise<void> {
    this.closes += 1;
  }
  async connect(): Promise<void> {
    this.connects += 1;
    if (this.connectFails) throw new Error('server selection timed out');
  }
}

describe('mongo server monitor watchdog', () => {
  let stop: (() => void) | undefined;
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    stop?.();
    vi.useRealTimers();
  });

  it('leaves a client alone while its heartbeats finish, failed or not', async () => {
    const client = new FakeClient();
    stop = watchMonitor(client, { stallMs: 30_000, logger });
    for (let beat = 0; beat < 20; beat += 1) {
      client.emit('serverHeartbeatStarted');
      await vi.advanceTimersByTimeAsync(9_000);
      client.emit(beat % 2 === 0 ? 'serverHeartbeatFailed' : 'serverHeartbeatSucceeded');
      await vi.advanceTimersByTimeAsync(1_000);
    }
    expect([client.closes, client.connects]).toEqual([0, 0]);
  });

  it('closes and connects the client again once a heartbeat stays pending past the stall time', async () => {
    const client = new FakeClient();
    stop = watchMonitor(client, { stallMs: 30_000, logger });
    client.emit('serverHeartbeatStarted');
    await vi.advanceTimersByTimeAsync(29_000);
    expect(client.closes).toBe(0);
    await vi.advanceTimersByTimeAsync(11_000);
    expect([client.closes, client.connects]).toEqual([1, 1]);

    // The restarted client's monitor beats normally: nothing more.
    client.emit('serverHeartbeatStarted');
    client.emit('serverHeartbeatSucceeded');
    await vi.advanceTimersByTimeAsync(120_000);
    expect([client.closes, client.connects]).toEqual([1, 1]);
  });

  it('tries again a stall later when the restart cannot connect, and stops when told', async () => {
    const client = new FakeClient();
    client.connectFails = true;
    stop = watchMonitor(client, { stallMs: 30_000, logger });
    client.emit('serverHeartbeatStarted');
    await vi.advanceTimersByTimeAsync(40_000);
    expect(client.connects).toBe(1);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(client.connects).toBe(2);
    stop();
    await vi.advanceTimersByTimeAsync(300_000);
    expect(client.connects).toBe(2);
  });
});
