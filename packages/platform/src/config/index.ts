export { loadConfig, ConfigError, type ConfigIssue } from './load-config.js';
export {
  baseServiceConfig,
  commaSeparatedList,
  port,
  type BaseServiceConfig,
} from './base-service-config.js';
export {
  describeKafkaSecurity,
  kafkaClientSecurity,
  kafkaSecurityConfig,
  kafkaSecurityFromEnv,
  type KafkaClientSecurity,
  type KafkaSaslOptions,
  type KafkaSecuritySettings,
  type KafkaTlsOptions,
} from './kafka-security.js';
export {
  MIN_SECRET_BITS,
  randomSecret,
  secretStrength,
  weakSecretReason,
  type SecretEncoding,
  type SecretStrength,
} from './secret-strength.js';
