import { metrics } from '@marquee/platform/metrics';
import type { ImportMetrics } from '../app/ports.js';

/** Partner events the import refused for breaking a rule of the 3P API, by partner. */
const refusedEvents = metrics.counter('marquee_refused_partner_events', {
  description: 'Partner events not imported because they break a rule of the 3P API, by partner',
});

/** The import's counters on the platform's metrics (`marquee_refused_partner_events_total`). */
export const importMetrics: ImportMetrics = {
  eventRefused(partnerId) {
    refusedEvents.add(1, { partner: partnerId });
  },
};
