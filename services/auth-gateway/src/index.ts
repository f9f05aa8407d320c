import type { ServiceDefinition } from '@marquee/platform/service';
import { v8OptionsOf } from '@marquee/platform/v8';
import manifest from '../package.json' with { type: 'json' };
import { loadAuthGatewayConfig, type AuthGatewayConfig } from './config.js';
import { composeAuthGateway } from './service.js';

export { configSchema, loadAuthGatewayConfig, type AuthGatewayConfig } from './config.js';

/** auth-gateway as the process runner and the embedded default see it. */
export const authGatewayService: ServiceDefinition<AuthGatewayConfig> = {
  name: 'auth-gateway',
  loadConfig: loadAuthGatewayConfig,
  compose: composeAuthGateway,
  // package.json `marquee.v8` (docs/architecture.md, "V8 options").
  v8: v8OptionsOf(manifest),
};
