import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  baseServiceConfig,
  describeKafkaSecurity,
  kafkaClientSecurity,
  kafkaSecurityFromEnv,
  loadConfig,
  port,
} from '../../src/config/index.js';

// Shapes of PEM only: the config checks the armour, kafkajs (node:tls) parses the contents.
const CERT = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----';
const KEY = '-----BEGIN PRIVATE KEY-----\nMIIEfake\n-----END PRIVATE KEY-----';
const PASSWORD = 'kafka-password-that-must-stay-secret';

const schema = baseServiceConfig.extend({ HTTP_PORT: port().default(1), GRPC_PORT: port() });
const security = (env: Record<string, string>) =>
  kafkaClientSecurity(loadConfig(schema, { SERVICE_NAME: 'cart', GRPC_PORT: '0', ...env }));

function file(content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'marquee-kafka-')), 'secret');
  writeFileSync(path, `${content}\n`);
  return path;
}

function issuesOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((issue) => issue.variable);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('Kafka client security settings', () => {
  it('is PLAINTEXT without authentication when nothing is set', () => {
    expect(security({})).toEqual({});
  });

  it('takes SCRAM-SHA-512 credentials, the password from a file', () => {
    const sut = security({
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'cart',
      KAFKA_SASL_PASSWORD_FILE: file(PASSWORD),
    });

    expect(sut).toEqual({
      sasl: { mechanism: 'scram-sha-512', username: 'cart', password: PASSWORD },
    });
  });

  it('takes PLAIN over TLS with a CA and a client certificate, each from a file', () => {
    const sut = security({
      NODE_ENV: 'production',
      KAFKA_SASL_MECHANISM: 'plain',
      KAFKA_SASL_USERNAME: 'cart',
      KAFKA_SASL_PASSWORD: PASSWORD,
      KAFKA_SSL_CA_FILE: file(CERT),
      KAFKA_SSL_CERT_FILE: file(CERT),
      KAFKA_SSL_KEY_FILE: file(KEY),
    });

    expect(sut.ssl).toEqual({ rejectUnauthorized: true, ca: [CERT], cert: CERT, key: KEY });
    expect(sut.sasl?.mechanism).toBe('plain');
  });

  it('turns TLS on with the system CAs for KAFKA_SSL=true alone', () => {
    expect(security({ KAFKA_SSL: 'true' })).toEqual({ ssl: { rejectUnauthorized: true } });
  });

  it('refuses credentials without a mechanism and a mechanism without credentials', () => {
    expect(issuesOf(() => security({ KAFKA_SASL_USERNAME: 'cart' }))).toEqual([
      'KAFKA_SASL_MECHANISM',
    ]);
    expect(issuesOf(() => security({ KAFKA_SASL_MECHANISM: 'scram-sha-512' }))).toEqual([
      'KAFKA_SASL_USERNAME',
      'KAFKA_SASL_PASSWORD',
    ]);
  });

  it('refuses an unknown mechanism', () => {
    expect(issuesOf(() => security({ KAFKA_SASL_MECHANISM: 'gssapi' }))).toEqual([
      'KAFKA_SASL_MECHANISM',
    ]);
  });

  it('refuses a certificate without its key, and text that is not PEM', () => {
    expect(issuesOf(() => security({ KAFKA_SSL_CERT: CERT }))).toEqual(['KAFKA_SSL_KEY']);
    expect(issuesOf(() => security({ KAFKA_SSL_CA: 'not a certificate' }))).toEqual([
      'KAFKA_SSL_CA',
    ]);
  });

  it('refuses, in production, PLAIN without TLS and unverified brokers', () => {
    const plain = {
      NODE_ENV: 'production',
      KAFKA_SASL_MECHANISM: 'plain',
      KAFKA_SASL_USERNAME: 'cart',
      KAFKA_SASL_PASSWORD: PASSWORD,
    };
    expect(issuesOf(() => security(plain))).toEqual(['KAFKA_SASL_MECHANISM']);
    expect(
      issuesOf(() =>
        security({ ...plain, KAFKA_SSL: 'true', KAFKA_SSL_REJECT_UNAUTHORIZED: 'false' }),
      ),
    ).toEqual(['KAFKA_SSL_REJECT_UNAUTHORIZED']);
  });

  it('never puts a password or a key into its errors or its description', () => {
    const error = (() => {
      try {
        security({ KAFKA_SASL_PASSWORD: PASSWORD, KAFKA_SSL_KEY: KEY, KAFKA_SSL_CA: 'x' });
      } catch (caught) {
        return caught as Error;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(error.message).not.toContain(PASSWORD);
    expect(error.message).not.toContain('MIIE');

    const described = JSON.stringify(
      describeKafkaSecurity(
        security({
          KAFKA_SASL_MECHANISM: 'scram-sha-512',
          KAFKA_SASL_USERNAME: 'cart',
          KAFKA_SASL_PASSWORD: PASSWORD,
          KAFKA_SSL_CERT: CERT,
          KAFKA_SSL_KEY: KEY,
        }),
      ),
    );
    expect(described).toContain('scram-sha-512');
    expect(described).not.toContain(PASSWORD);
    expect(described).not.toContain('MIIE');
  });

  it('reads the same variables for scripts and test helpers', () => {
    expect(
      kafkaSecurityFromEnv({
        KAFKA_SASL_MECHANISM: 'scram-sha-256',
        KAFKA_SASL_USERNAME: 'tools',
        KAFKA_SASL_PASSWORD: PASSWORD,
      }),
    ).toEqual({ sasl: { mechanism: 'scram-sha-256', username: 'tools', password: PASSWORD } });
    expect(kafkaSecurityFromEnv({})).toEqual({});
  });
});
