import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, baseServiceConfig, loadConfig, port } from '../../src/config/index.js';

const schema = baseServiceConfig.extend({
  HTTP_PORT: port().default(8084),
  GRPC_PORT: port().default(50054),
  ADMIN_TOKEN: z.string().min(16),
});

function validEnv(overrides: Record<string, string | undefined> = {}) {
  return { SERVICE_NAME: 'deals', ADMIN_TOKEN: 'a-long-enough-admin-token', ...overrides };
}

function secretFile(content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'marquee-config-')), 'secret');
  writeFileSync(path, content);
  return path;
}

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('applies the base defaults', () => {
    const sut = loadConfig(schema, validEnv());

    expect(sut).toEqual({
      SERVICE_NAME: 'deals',
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      HTTP_PORT: 8084,
      GRPC_PORT: 50054,
      METRICS_PORT: 9464,
      GRPC_MAX_CONNECTION_AGE_MS: 300_000,
      GRPC_MAX_CONNECTION_AGE_GRACE_MS: 30_000,
      KAFKA_SESSION_TIMEOUT_MS: 6_000,
      KAFKA_HEARTBEAT_INTERVAL_MS: 2_000,
      KAFKA_FETCH_MIN_BYTES: 1,
      KAFKA_SSL_REJECT_UNAUTHORIZED: true,
      MONGO_MAX_POOL_SIZE: 20,
      SHUTDOWN_TIMEOUT_MS: 30_000,
      ADMIN_TOKEN: 'a-long-enough-admin-token',
    });
  });

  it('parses ports, the broker list and the Mongo URL', () => {
    const sut = loadConfig(
      schema,
      validEnv({
        HTTP_PORT: '0',
        KAFKA_BROKERS: ' 127.0.0.1:19092, kafka-2:9092 ,',
        MONGO_URL: 'mongodb://a:27017,b:27017/deals?replicaSet=rs0',
      }),
    );

    expect(sut.HTTP_PORT).toBe(0);
    expect(sut.KAFKA_BROKERS).toEqual(['127.0.0.1:19092', 'kafka-2:9092']);
    expect(sut.MONGO_URL).toBe('mongodb://a:27017,b:27017/deals?replicaSet=rs0');
  });

  it('reads X_FILE and trims it, for secrets mounted as files', () => {
    const sut = loadConfig(
      schema,
      validEnv({
        ADMIN_TOKEN: undefined,
        ADMIN_TOKEN_FILE: secretFile('  token-from-a-mounted-file\n'),
      }),
    );

    expect(sut.ADMIN_TOKEN).toBe('token-from-a-mounted-file');
  });

  it('treats an empty variable as unset so the default applies', () => {
    const sut = loadConfig(schema, validEnv({ LOG_LEVEL: '', HTTP_PORT: '' }));

    expect(sut.LOG_LEVEL).toBe('info');
    expect(sut.HTTP_PORT).toBe(8084);
  });

  it('lists every bad variable by name in one error, never a value', () => {
    const error = errorOf(() =>
      loadConfig(
        schema,
        validEnv({
          SERVICE_NAME: undefined,
          LOG_LEVEL: 'loud',
          HTTP_PORT: '70000',
          ADMIN_TOKEN: 'short-secret',
          MONGO_URL: 'postgres://user:pw-in-url@db',
        }),
      ),
    );

    expect(error.issues.map((issue) => issue.variable).sort()).toEqual(
      ['ADMIN_TOKEN', 'HTTP_PORT', 'LOG_LEVEL', 'MONGO_URL', 'SERVICE_NAME'].sort(),
    );
    expect(error.issues.find((issue) => issue.variable === 'SERVICE_NAME')?.message).toBe(
      'is required but not set',
    );
    for (const name of ['SERVICE_NAME', 'LOG_LEVEL', 'HTTP_PORT', 'ADMIN_TOKEN', 'MONGO_URL']) {
      expect(error.message).toContain(name);
    }
    expect(error.message).not.toContain('short-secret');
    expect(error.message).not.toContain('pw-in-url');
    expect(error.message).not.toContain('loud');
  });

  it('refuses X and X_FILE together, and reports an unreadable file by its variable', () => {
    const error = errorOf(() =>
      loadConfig(
        schema,
        validEnv({
          ADMIN_TOKEN_FILE: secretFile('from-file-but-also-set-directly'),
          SERVICE_NAME: undefined,
          SERVICE_NAME_FILE: '/nonexistent/marquee/secret',
        }),
      ),
    );

    // One issue each: the "required" that would follow from the missing value is not repeated.
    expect(error.issues).toEqual([
      { variable: 'SERVICE_NAME_FILE', message: 'cannot read the file it names (ENOENT)' },
      {
        variable: 'ADMIN_TOKEN',
        message: 'set both ADMIN_TOKEN and ADMIN_TOKEN_FILE; set only one',
      },
    ]);
  });
});
