import { randomBytes } from 'node:crypto';
import { randomIds } from '../../src/adapters/ids.js';
import { orderTokenBox, sha256Hasher } from '../../src/adapters/secret-box.js';
import type { CartSettings } from '../../src/app/index.js';
import type { SecretBox } from '../../src/app/ports.js';
import { DEFAULT_FEES } from '../../src/domain/pricing.js';

/** A log that drops everything. */
export const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The settings the cart app tests run with; `overrides` replace single ones. */
export function testCartSettings(overrides: Partial<CartSettings> = {}): CartSettings {
  return {
    reserveWaitMs: 2_000,
    pollAfterSeconds: 1,
    reserveAttempts: 2,
    reserveRetryMs: 1,
    pendingStaleMs: 30_000,
    owedRetryMs: 0,
    commitGraceMs: 60_000,
    sandboxHoldSeconds: 600,
    fees: DEFAULT_FEES,
    maintenance: undefined,
    trackingWindowMs: 60_000,
    termsUrl: 'https://example.test/terms',
    secureEntryAgreementUrl: 'https://example.test/secure',
    redemptionBaseUrl: 'https://example.test/orders/',
    ...overrides,
  };
}

/**
 * The part of a `CartApp`'s dependencies every test gives alike: a fresh secret box (unless one is
 * given), random ids, the SHA-256 hasher, the clock `now`, a silent log and the test settings.
 */
export function cartAppDefaults(
  now: () => Date,
  options: { secrets?: SecretBox; settings?: Partial<CartSettings> } = {},
) {
  return {
    secrets: options.secrets ?? orderTokenBox([randomBytes(32)]),
    ids: randomIds,
    hasher: sha256Hasher,
    clock: { now },
    log: silent,
    settings: testCartSettings(options.settings),
  };
}
