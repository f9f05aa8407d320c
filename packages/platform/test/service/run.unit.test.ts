import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * A process that runs `runService` for a service declaring `uses` (argv[2]: JSON) in production
 * without KAFKA_BROKERS or MONGO_URL, and records every bare package it resolves (Node's in-thread
 * module hooks, which also map the sources' '.js' imports to their '.ts' files). It prints the
 * packages once the service is up, then stops itself.
 */
const probe = `
import { registerHooks } from 'node:module';
const packages = new Set();
registerHooks({
  resolve(specifier, context, next) {
    // The sources are TypeScript imported as '.js' (what tsc emits); Node strips the types.
    if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.includes('/src/'))
      specifier = specifier.slice(0, -3) + '.ts';
    if (!specifier.startsWith('.') && !specifier.startsWith('node:') && !specifier.startsWith('file:'))
      packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]);
    return next(specifier, context);
  },
});
const { runService, serviceConfigSchema } = await import(process.argv[1]);
const schema = serviceConfigSchema({ name: 'probe-service', httpPort: 0, grpcPort: 0 });
await runService({
  name: 'probe-service',
  uses: JSON.parse(process.argv[2]),
  loadConfig: (env) => schema.parse(env),
  compose: async () => ({
    start: async () => {
      console.log(JSON.stringify([...packages].sort()));
      process.kill(process.pid, 'SIGTERM');
    },
  }),
});
`;

const run = (uses: object) => {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'error',
    // Ephemeral: other processes of the machine may hold the default 9464.
    METRICS_PORT: '0',
  };
  delete env.KAFKA_BROKERS;
  delete env.MONGO_URL;
  return spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      probe,
      fileURLToPath(new URL('../../src/service/index.ts', import.meta.url)),
      JSON.stringify(uses),
    ],
    { encoding: 'utf8', timeout: 60_000, env },
  );
};

describe('runService and ServiceDefinition.uses', () => {
  it('starts a service that uses neither bus nor Mongo without them, and never loads kafkajs or mongoose', () => {
    const result = run({ bus: false, mongo: false });
    expect(result.stderr).not.toContain('production needs');
    const packages = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as string[];
    // The probe sees the service's own packages, so it would see these if they were imported.
    expect(packages).toContain('fastify');
    expect(packages).toContain('@grpc/grpc-js');
    expect(packages).not.toContain('kafkajs');
    expect(packages).not.toContain('mongoose');
    expect(result.status).toBe(0);
  }, 90_000);

  it('refuses a production start without what the service uses, naming it', () => {
    const both = run({});
    expect(both.status).toBe(1);
    expect(both.stdout + both.stderr).toContain('production needs KAFKA_BROKERS and MONGO_URL');
    const mongoOnly = run({ bus: false });
    expect(mongoOnly.status).toBe(1);
    expect(mongoOnly.stdout + mongoOnly.stderr).toContain('production needs MONGO_URL:');
  }, 90_000);
});
