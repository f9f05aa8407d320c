import type { ServiceDefinition } from '@marquee/platform/service';
import { loadCartConfig, type CartConfig } from './config.js';
import { composeCart } from './service.js';

export { configSchema, loadCartConfig, type CartConfig } from './config.js';

/** cart as the process runner and the embedded default see it. */
export const cartService: ServiceDefinition<CartConfig> = {
  name: 'cart',
  loadConfig: loadCartConfig,
  compose: composeCart,
};
