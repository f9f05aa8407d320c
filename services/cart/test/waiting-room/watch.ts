import type { OnSaleRepository, OnSaleWatch } from '../../src/waiting-room/app/ports.js';

/**
 * A watch for tests whose reads never wait: `latest` reads the store each time (the tests move
 * their clock by hand, so nothing may be kept by wall time), and `until` is never asked.
 */
export function passThroughWatch(onSales: Pick<OnSaleRepository, 'get'>): OnSaleWatch {
  return {
    latest: (eventId) => onSales.get(eventId),
    forget: () => undefined,
    until: () => Promise.reject(new Error('no long poll in this test')),
  };
}
