import { describeIntegration, useMongoDatabases } from '@marquee/platform/testing';
import { describe } from 'vitest';
import { contentionScenario } from './contention-scenario.js';
import { ManualClock } from './fixtures.js';
import { httpHarness } from './http.js';

describeIntegration('contention on the Mongo-wire store', ({ mongoUrl }) => {
  const mongo = useMongoDatabases(mongoUrl, 'partner-reference-test');

  describe('1,000 concurrent bookings over real FerretDB', () => {
    contentionScenario(
      async (clock) => {
        return {
          h: await httpHarness({
            mongo: mongo.fresh('partner_ref'),
            clock,
            env: { BOOKING_TIMEOUT_MS: '60000' },
          }),
          clock,
        };
      },
      () => new ManualClock(),
    );
  });
});
