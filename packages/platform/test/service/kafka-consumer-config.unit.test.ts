import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { consumerTimingProblem } from '../../src/bus/consumer-timing.js';
import { loadConfig } from '../../src/config/index.js';
import { serviceConfigSchema } from '../../src/service/config.js';

describe('Kafka consumer timing from a service config', () => {
  const plain = serviceConfigSchema({ name: 'deals', httpPort: 8084, grpcPort: 50054 });
  const quick = serviceConfigSchema({
    name: 'catalog-indexer',
    httpPort: 8083,
    grpcPort: 50053,
    kafkaConsumer: { sessionTimeoutMs: 10_000, heartbeatIntervalMs: 3_000 },
  });

  it("defaults to the platform's 6 s session and 2 s heartbeat", () => {
    expect(loadConfig(plain, {})).toMatchObject({
      KAFKA_SESSION_TIMEOUT_MS: 6_000,
      KAFKA_HEARTBEAT_INTERVAL_MS: 2_000,
    });
  });

  it("takes a service's own defaults, and the environment over both", () => {
    expect(loadConfig(quick, {})).toMatchObject({
      KAFKA_SESSION_TIMEOUT_MS: 10_000,
      KAFKA_HEARTBEAT_INTERVAL_MS: 3_000,
    });
    expect(
      loadConfig(quick, { KAFKA_SESSION_TIMEOUT_MS: '45000', KAFKA_HEARTBEAT_INTERVAL_MS: '5000' }),
    ).toMatchObject({ KAFKA_SESSION_TIMEOUT_MS: 45_000, KAFKA_HEARTBEAT_INTERVAL_MS: 5_000 });
  });

  it('refuses values that are not positive whole milliseconds, naming the variable', () => {
    expect(() => loadConfig(plain, { KAFKA_SESSION_TIMEOUT_MS: '6s' })).toThrow(
      /KAFKA_SESSION_TIMEOUT_MS/,
    );
    expect(() => loadConfig(plain, { KAFKA_HEARTBEAT_INTERVAL_MS: '0' })).toThrow(
      /KAFKA_HEARTBEAT_INTERVAL_MS/,
    );
  });

  it('finds a heartbeat that is not below the session wrong', () => {
    expect(consumerTimingProblem(6_000, 2_000)).toBeUndefined();
    expect(consumerTimingProblem(6_000, 6_000)).toMatch(/below the session timeout/);
    expect(consumerTimingProblem(6_000, 0)).toMatch(/above 0/);
  });
});

/**
 * `runService` in a process of its own, as a service's main.ts runs it (the sources through
 * Node's type stripping), with the environment given: it must refuse to start on a heartbeat that
 * is not below the session, naming the variable, before it connects to anything.
 */
const probe = `
import { registerHooks } from 'node:module';
registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.includes('/src/'))
      specifier = specifier.slice(0, -3) + '.ts';
    return next(specifier, context);
  },
});
const { runService, serviceConfigSchema } = await import(process.argv[1]);
const { loadConfig } = await import(process.argv[2]);
const schema = serviceConfigSchema({ name: 'probe-service', httpPort: 0, grpcPort: 0 });
await runService({
  name: 'probe-service',
  uses: { bus: false, mongo: false },
  loadConfig: (env) => loadConfig(schema, env),
  compose: async () => ({ start: async () => process.kill(process.pid, 'SIGTERM') }),
});
`;

describe('runService and the Kafka consumer timing', () => {
  const run = (env: Record<string, string>) =>
    spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        probe,
        fileURLToPath(new URL('../../src/service/index.ts', import.meta.url)),
        fileURLToPath(new URL('../../src/config/index.ts', import.meta.url)),
      ],
      {
        encoding: 'utf8',
        timeout: 60_000,
        env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'error', METRICS_PORT: '0', ...env },
      },
    );

  it('refuses a heartbeat that is not below the session, naming the variable', () => {
    const result = run({ KAFKA_SESSION_TIMEOUT_MS: '6000', KAFKA_HEARTBEAT_INTERVAL_MS: '6000' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('KAFKA_HEARTBEAT_INTERVAL_MS');
    expect(result.stderr).toContain('below the session timeout (6000 ms)');
  }, 90_000);

  it('starts with a heartbeat below the session', () => {
    const result = run({ KAFKA_SESSION_TIMEOUT_MS: '6000', KAFKA_HEARTBEAT_INTERVAL_MS: '2000' });
    expect(result.stderr).not.toContain('KAFKA_HEARTBEAT_INTERVAL_MS');
    expect(result.status).toBe(0);
  }, 90_000);
});
