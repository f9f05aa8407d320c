import type { AppHoldings } from '../../src/waiting-room/app/ports.js';

/** Holdings for tests whose apps have no held-ticket quota: every fan's app has room. */
export const noQuota: AppHoldings = {
  limitOf: () => 0,
  ticketsHeld: () => Promise.resolve(0),
};
