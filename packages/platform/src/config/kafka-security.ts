import { z } from 'zod';
import { ConfigError, loadConfig, type ConfigIssue } from './load-config.js';

/**
 * How a process authenticates to Kafka and encrypts its connections: TLS (a private CA, and a
 * client certificate for mutual TLS) and SASL (SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN). Every key
 * has an `_FILE` twin (loadConfig): certificates, keys and passwords are mounted from a Secret.
 * Unset, the client speaks PLAINTEXT without authentication, as the embedded and local modes do.
 *
 * These keys are part of {@link baseServiceConfig}; scripts and test helpers that make their own
 * kafkajs client read them with {@link kafkaSecurityFromEnv}.
 */
export const kafkaSecurityConfig = {
  // TLS to the brokers. Implied by any of the KAFKA_SSL_* material below.
  KAFKA_SSL: z.stringbool().optional(),
  // PEM of the CA(s) that signed the brokers' certificates; the system's CAs when unset.
  KAFKA_SSL_CA: z.string().optional(),
  // Client certificate and key (PEM) for brokers that authenticate clients by certificate.
  KAFKA_SSL_CERT: z.string().optional(),
  KAFKA_SSL_KEY: z.string().optional(),
  KAFKA_SSL_KEY_PASSWORD: z.string().optional(),
  // Off only for a test broker with a self-signed certificate; refused in production.
  KAFKA_SSL_REJECT_UNAUTHORIZED: z.stringbool().default(true),
  KAFKA_SASL_MECHANISM: z.enum(['scram-sha-512', 'scram-sha-256', 'plain']).optional(),
  KAFKA_SASL_USERNAME: z.string().optional(),
  KAFKA_SASL_PASSWORD: z.string().optional(),
};

const kafkaSecuritySchema = z.object({
  ...kafkaSecurityConfig,
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
});

export type KafkaSecuritySettings = z.output<typeof kafkaSecuritySchema>;

/** kafkajs's `ssl` option (node:tls connection options), kept kafkajs-free for the config. */
export type KafkaTlsOptions = {
  ca?: string[];
  cert?: string;
  key?: string;
  passphrase?: string;
  rejectUnauthorized: boolean;
};

type SaslMechanism = 'scram-sha-512' | 'scram-sha-256' | 'plain';

/** kafkajs's `sasl` option for the mechanisms taken here (a union, as kafkajs's own type). */
export type KafkaSaslOptions = {
  [M in SaslMechanism]: { mechanism: M; username: string; password: string };
}[SaslMechanism];

export interface KafkaClientSecurity {
  ssl?: KafkaTlsOptions;
  sasl?: KafkaSaslOptions;
}

/**
 * The kafkajs `ssl` and `sasl` options from the parsed settings; throws a {@link ConfigError}
 * naming the variables (never their values) when they do not fit together.
 */
export function kafkaClientSecurity(
  settings: Omit<KafkaSecuritySettings, 'NODE_ENV'> & { NODE_ENV?: string },
): KafkaClientSecurity {
  const issues: ConfigIssue[] = [];
  const {
    KAFKA_SSL_CA: ca,
    KAFKA_SSL_CERT: cert,
    KAFKA_SSL_KEY: key,
    KAFKA_SSL_KEY_PASSWORD: passphrase,
  } = settings;
  if ((cert === undefined) !== (key === undefined)) {
    issues.push({
      variable: cert === undefined ? 'KAFKA_SSL_CERT' : 'KAFKA_SSL_KEY',
      message: 'a client certificate needs both KAFKA_SSL_CERT and KAFKA_SSL_KEY',
    });
  }
  if (passphrase !== undefined && key === undefined)
    issues.push({ variable: 'KAFKA_SSL_KEY_PASSWORD', message: 'set without KAFKA_SSL_KEY' });
  for (const [variable, pem] of [
    ['KAFKA_SSL_CA', ca],
    ['KAFKA_SSL_CERT', cert],
  ] as const) {
    if (pem !== undefined && !pem.includes('-----BEGIN CERTIFICATE-----'))
      issues.push({ variable, message: 'must be PEM (-----BEGIN CERTIFICATE-----)' });
  }
  if (key !== undefined && !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key))
    issues.push({ variable: 'KAFKA_SSL_KEY', message: 'must be a PEM private key' });
  const material = ca !== undefined || cert !== undefined;
  if (settings.KAFKA_SSL === false && material)
    issues.push({ variable: 'KAFKA_SSL', message: 'is false but KAFKA_SSL_* material is set' });
  const tls = settings.KAFKA_SSL ?? material;
  if (!settings.KAFKA_SSL_REJECT_UNAUTHORIZED && settings.NODE_ENV === 'production')
    issues.push({
      variable: 'KAFKA_SSL_REJECT_UNAUTHORIZED',
      message: 'may not be false in production: the brokers would go unverified',
    });

  const { KAFKA_SASL_MECHANISM: mechanism, KAFKA_SASL_USERNAME: username } = settings;
  const password = settings.KAFKA_SASL_PASSWORD;
  if (mechanism !== undefined) {
    if (username === undefined)
      issues.push({ variable: 'KAFKA_SASL_USERNAME', message: 'is required with a mechanism' });
    if (password === undefined)
      issues.push({ variable: 'KAFKA_SASL_PASSWORD', message: 'is required with a mechanism' });
  } else if (username !== undefined || password !== undefined) {
    issues.push({
      variable: 'KAFKA_SASL_MECHANISM',
      message: 'is required with KAFKA_SASL_USERNAME / KAFKA_SASL_PASSWORD',
    });
  }
  if (mechanism === 'plain' && !tls && settings.NODE_ENV === 'production')
    issues.push({
      variable: 'KAFKA_SASL_MECHANISM',
      message: 'plain sends the password in the clear: production needs KAFKA_SSL with it',
    });
  if (issues.length > 0) throw new ConfigError(issues);

  const security: KafkaClientSecurity = {};
  if (tls) {
    security.ssl = {
      rejectUnauthorized: settings.KAFKA_SSL_REJECT_UNAUTHORIZED,
      ...(ca !== undefined ? { ca: [ca] } : {}),
      ...(cert !== undefined ? { cert } : {}),
      ...(key !== undefined ? { key } : {}),
      ...(passphrase !== undefined ? { passphrase } : {}),
    };
  }
  if (mechanism !== undefined && username !== undefined && password !== undefined)
    security.sasl = { mechanism, username, password };
  return security;
}

/**
 * What may be logged about the security settings: whether TLS is on and with what, the SASL
 * mechanism and user; never a key, a certificate body or a password.
 */
export function describeKafkaSecurity(security: KafkaClientSecurity): Record<string, unknown> {
  return {
    tls: security.ssl
      ? {
          customCa: security.ssl.ca !== undefined,
          clientCertificate: security.ssl.cert !== undefined,
          verifyBrokers: security.ssl.rejectUnauthorized,
        }
      : false,
    sasl: security.sasl
      ? { mechanism: security.sasl.mechanism, username: security.sasl.username }
      : false,
  };
}

/**
 * The kafkajs `ssl`/`sasl` options from an environment (the same variables and `_FILE` twins as a
 * service's config), for scripts and test helpers that make their own kafkajs client.
 */
export function kafkaSecurityFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): KafkaClientSecurity {
  return kafkaClientSecurity(loadConfig(kafkaSecuritySchema, env));
}
