export { loadConfig, ConfigError, type ConfigIssue } from './load-config.js';
export {
  baseServiceConfig,
  commaSeparatedList,
  port,
  type BaseServiceConfig,
} from './base-service-config.js';
