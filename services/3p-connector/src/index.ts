import type { ServiceDefinition } from '@marquee/platform/service';
import { loadThreePConnectorConfig, type ThreePConnectorConfig } from './config.js';
import { composeThreePConnector } from './service.js';

export { configSchema, loadThreePConnectorConfig, type ThreePConnectorConfig } from './config.js';

/** 3p-connector as the process runner and the embedded default see it. */
export const threePConnectorService: ServiceDefinition<ThreePConnectorConfig> = {
  name: '3p-connector',
  loadConfig: loadThreePConnectorConfig,
  compose: composeThreePConnector,
};
