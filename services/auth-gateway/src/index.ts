import type { ServiceDefinition } from '@marquee/platform/service';
import { loadAuthGatewayConfig, type AuthGatewayConfig } from './config.js';
import { composeAuthGateway } from './service.js';

export { configSchema, loadAuthGatewayConfig, type AuthGatewayConfig } from './config.js';

/** auth-gateway as the process runner and the embedded default see it. */
export const authGatewayService: ServiceDefinition<AuthGatewayConfig> = {
  name: 'auth-gateway',
  loadConfig: loadAuthGatewayConfig,
  compose: composeAuthGateway,
};
