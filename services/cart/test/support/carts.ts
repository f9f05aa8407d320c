import type { Cart } from '../../src/domain/cart.js';

/**
 * A new partner-cart cart in GBP (London, no secure entry), PENDING after its first reserve
 * attempt, with nothing reserved or owed yet; created and updated `at`.
 */
export const pendingCart = (
  head: Pick<Cart, 'id' | 'appId' | 'eventId' | 'partnerId'>,
  at: Date,
  over: Partial<Cart> = {},
): Cart => ({
  ...head,
  channel: 'partner-cart',
  sandbox: false,
  language: 'en-us',
  currency: 'GBP',
  secureEntryEnabled: false,
  countryCode: 'GB',
  timezone: 'Europe/London',
  status: 'PENDING',
  requests: [],
  lines: [],
  reserveAttempts: 1,
  tickets: [],
  releaseOwed: false,
  bookingUnknown: false,
  voidOwed: false,
  createdAt: at,
  updatedAt: at,
  ...over,
});
