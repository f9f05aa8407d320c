import { describe, expect, it } from 'vitest';
import {
  createKafkaBus,
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  DEFAULT_SESSION_TIMEOUT_MS,
} from '../../src/bus/kafka-bus.js';

const base = { brokers: ['127.0.0.1:1'], clientId: 'options-test', source: '//marquee/test' };

describe('createKafkaBus consumer timing options', () => {
  it("defaults to the broker's shortest session (6 s) and a 2 s heartbeat", () => {
    expect([DEFAULT_SESSION_TIMEOUT_MS, DEFAULT_HEARTBEAT_INTERVAL_MS]).toEqual([6_000, 2_000]);
  });

  it.each([
    [{ sessionTimeoutMs: 2_000 }],
    [{ heartbeatIntervalMs: 10_000 }],
    [{ sessionTimeoutMs: 20_000, heartbeatIntervalMs: 0 }],
  ])('refuses a heartbeat that is not below the session: %o', (consumer) => {
    expect(() => createKafkaBus({ ...base, consumer })).toThrow(/heartbeatIntervalMs/);
  });

  it('takes a service override of both', async () => {
    const bus = createKafkaBus({
      ...base,
      consumer: { sessionTimeoutMs: 45_000, heartbeatIntervalMs: 5_000 },
    });
    await bus.close();
  });
});
