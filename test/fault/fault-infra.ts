import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/stack.js';

const infraScript = fileURLToPath(new URL('../../deploy/local/infra.sh', import.meta.url));

/**
 * A Kafka broker and a Mongo-wire server of the fault tier's own: `deploy/local/infra.sh` with a
 * state directory of its own (empty at every run) and free ports, so stopping, killing and
 * restarting them never touches the servers the other tiers (and other engineers) share.
 */
export interface FaultInfra {
  kafkaBrokers: string;
  /** The broker's authenticated listener and its users' password files (services log in there). */
  kafkaSasl: { brokers: string; credentialsDir: string };
  mongoUrl: string;
  /** `infra.sh <command> [server]`, e.g. `('stop', 'kafka')`; resolves when it has finished. */
  run(command: 'start' | 'stop' | 'restart', server?: 'kafka' | 'mongo'): Promise<void>;
  /** Stops both servers and deletes their data. */
  destroy(): Promise<void>;
}

/** `servers`: which of the two to start (both by default); the other is neither started nor stopped. */
export async function startFaultInfra(
  servers: 'kafka' | 'mongo' | 'both' = 'both',
): Promise<FaultInfra> {
  const state = mkdtempSync(join(tmpdir(), 'marquee-fault-'));
  const [kafkaPort, controllerPort, saslPort, mongoPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const env = {
    ...process.env,
    MARQUEE_STATE: state,
    KAFKA_PORT: String(kafkaPort),
    KAFKA_CONTROLLER_PORT: String(controllerPort),
    // The authenticated listener: a port of its own, never KAFKA_PORT + 2 (another run's port).
    KAFKA_SASL_PORT: String(saslPort),
    MONGO_PORT: String(mongoPort),
  };
  // Asynchronous on purpose: the publishing load runs in this process while a server restarts.
  const run = (command: string, server?: string) =>
    new Promise<void>((resolve, reject) => {
      const output: string[] = [];
      const child = spawn('bash', [infraScript, command, ...(server ? [server] : [])], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
      child.once('error', reject);
      child.once('exit', (code) =>
        code === 0
          ? resolve()
          : reject(
              new Error(`infra.sh ${command} ${server ?? ''} exited ${code}:\n${output.join('')}`),
            ),
      );
    });
  // Only the servers asked for: infra.sh's default set includes stripe-mock on its fixed port,
  // which the run's own stripe-mock already holds.
  const targets = servers === 'both' ? (['kafka', 'mongo'] as const) : [servers];
  const destroy = async () => {
    for (const server of targets)
      await run('stop', server).catch((error: unknown) => console.warn((error as Error).message));
    rmSync(state, { recursive: true, force: true });
  };
  try {
    for (const server of targets) await run('start', server);
  } catch (error) {
    await destroy();
    throw error;
  }
  return {
    kafkaBrokers: `127.0.0.1:${kafkaPort}`,
    kafkaSasl: {
      brokers: `127.0.0.1:${saslPort}`,
      credentialsDir: join(state, 'kafka', 'credentials'),
    },
    mongoUrl: `mongodb://127.0.0.1:${mongoPort}`,
    run,
    destroy,
  };
}
