import { describe, expect, it } from 'vitest';
import { createMemoryBus } from '../../src/bus/memory-bus.js';
import { createLogger } from '../../src/logger/index.js';
import { hostService } from '../../src/service/host.js';

const logger = createLogger({ service: 'host-test', level: 'silent' });

describe('hostService readiness', () => {
  const host = async (uses?: { bus?: boolean; mongo?: boolean }) => {
    const bus = createMemoryBus({ source: '//test' });
    await bus.start();
    const infra = { name: 'host-test', logger, bus, mongo: undefined };
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
});
