import type { Connection } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { createMemoryBus } from '../../src/bus/memory-bus.js';
import { createLogger } from '../../src/logger/index.js';
import { callVariables } from '../../src/service/calls.js';
import { hostService } from '../../src/service/host.js';

const logger = createLogger({ service: 'host-test', level: 'silent' });

describe('hostService readiness', () => {
  const host = async (uses?: { bus?: boolean; mongo?: boolean }, mongo?: Connection) => {
    const bus = createMemoryBus({ source: '//test' });
    await bus.start();
    const infra = { name: 'host-test', logger, bus, mongo };
    const hosted = await hostService(
      infra,
      { readiness: { 'read-model': async () => true } },
      { host: '127.0.0.1', httpPort: 0, grpcPort: 0, ...(uses ? { uses } : {}) },
    );
    try {
      const response = await hosted.http.inject({ method: 'GET', url: '/readyz' });
      return { status: response.statusCode, checks: response.json().checks as object };
    } finally {
      await hosted.stop();
      await bus.close();
    }
  };

  it('reports the event bus of a service that uses it, and its own checks', async () => {
    expect(await host()).toEqual({
      status: 200,
      checks: { 'event-bus': true, 'read-model': true },
    });
  });

  it('leaves out the bus a service does not use (ServiceDefinition.uses)', async () => {
    expect(await host({ bus: false, mongo: false })).toEqual({
      status: 200,
      checks: { 'read-model': true },
    });
  });

  it('pings a database the service uses, and not one it was handed without using it', async () => {
    // Not a live connection: its ping fails, which is what the check then reports.
    const unreachable = { db: undefined } as unknown as Connection;
    expect((await host({ bus: false }, unreachable)).checks).toEqual({
      mongo: false,
      'read-model': true,
    });
    expect((await host({ bus: false, mongo: false }, unreachable)).checks).toEqual({
      'read-model': true,
    });
  });
});

describe('callVariables', () => {
  it('names the addresses of a called service as the Helm chart does', () => {
    expect(
      callVariables('3p-connector', { host: '127.0.0.1', grpcPort: 50057, httpPort: 8087 }),
    ).toEqual({
      GRPC_ADDR_3P_CONNECTOR: '127.0.0.1:50057',
      HTTP_URL_3P_CONNECTOR: 'http://127.0.0.1:8087',
    });
  });
});
