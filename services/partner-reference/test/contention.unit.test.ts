import { describe } from 'vitest';
import { contentionScenario } from './contention-scenario.js';
import { ManualClock } from './fixtures.js';
import { httpHarness } from './http.js';

describe('contention on the memory store', () => {
  contentionScenario(
    async (clock) => ({
      h: await httpHarness({ clock, env: { BOOKING_TIMEOUT_MS: '60000' } }),
      clock,
    }),
    () => new ManualClock(),
  );
});
