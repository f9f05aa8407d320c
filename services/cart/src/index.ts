import type { ServiceDefinition } from '@marquee/platform/service';
import { v8OptionsOf } from '@marquee/platform/v8';
import manifest from '../package.json' with { type: 'json' };
import { loadCartConfig, type CartConfig } from './config.js';
import { composeCart } from './service.js';

export { configSchema, loadCartConfig, type CartConfig } from './config.js';

/** cart as the process runner and the embedded default see it. */
export const cartService: ServiceDefinition<CartConfig> = {
  name: 'cart',
  loadConfig: loadCartConfig,
  compose: composeCart,
  calls: ['3p-connector', 'secure-entry'],
  // The nightly maintenance window would make a development run depend on the wall clock.
  development: { env: () => ({ CART_MAINTENANCE_WINDOW: 'off' }) },
  // package.json `marquee.v8` (docs/architecture.md, "V8 options").
  v8: v8OptionsOf(manifest),
};
