import type { Connection } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { createMemoryBus } from '../../src/bus/memory-bus.js';
import { createLogger } from '../../src/logger/index.js';
import { callVariables } from '../../src/service/calls.js';
import { startMetricsServer } from '../../src/metrics/index.js';
import { hostService, type HostedService } from '../../src/service/host.js';
import { waitFor } from '../../src/testing/wait-for.js';

const logger = createLogger({ service: 'host-test', level: 'silent' });

describe('hostService readiness', () => {
  /** A bus whose broker is unreachable: every probe of it fails. */
  const downBus = () => {
    const bus = createMemoryBus({ source: '//test' });
    bus.ready = async () => false;
    return bus;
  };

  const host = async (
    options: {
      name?: string;
      uses?: { bus?: boolean; mongo?: boolean };
      mongo?: Connection;
      busDown?: boolean;
    } = {},
  ) => {
    const bus = options.busDown ? downBus() : createMemoryBus({ source: '//test' });
    await bus.start();
    const infra = { name: options.name ?? 'host-test', logger, bus, mongo: options.mongo };
    const hosted = await hostService(
      infra,
      { readiness: { 'read-model': async () => true } },
      {
        host: '127.0.0.1',
        httpPort: 0,
        grpcPort: 0,
        ...(options.uses ? { uses: options.uses } : {}),
      },
    );
    return { hosted, bus };
  };

  const readyz = async (hosted: HostedService) => {
    const response = await hosted.http.inject({ method: 'GET', url: '/readyz' });
    return { status: response.statusCode, checks: response.json().checks as object };
  };

  it('is ready once started and its own checks hold; the shared dependencies are not in it', async () => {
    const { hosted, bus } = await host();
    try {
      expect(await readyz(hosted)).toEqual({
        status: 200,
        checks: { serving: true, 'read-model': true },
      });
    } finally {
      await hosted.stop();
      await bus.close();
    }
  });

  it('stays ready while Kafka and Mongo are down, and reports them in marquee_dependency_up', async () => {
    // Not a live connection: its ping fails, as with Mongo down.
    const unreachable = { db: undefined } as unknown as Connection;
    const { hosted, bus } = await host({ busDown: true, mongo: unreachable });
    const metricsServer = await startMetricsServer({ host: '127.0.0.1', port: 0 });
    try {
      expect(await readyz(hosted)).toEqual({
        status: 200,
        checks: { serving: true, 'read-model': true },
      });
      // The first probe runs as the service starts; the gauge shows its result once it is in.
      await waitFor(async () =>
        /marquee_dependency_up\{service="host-test",dependency="mongo"\} 0/.test(
          await scrape(metricsServer.url),
        ),
      );
      const text = await scrape(metricsServer.url);
      expect(text).toMatch(/marquee_dependency_up\{service="host-test",dependency="event-bus"\} 0/);
    } finally {
      await metricsServer.close();
      await hosted.stop();
      await bus.close();
    }
  });

  it('does not probe what the service does not use (ServiceDefinition.uses)', async () => {
    const unreachable = { db: undefined } as unknown as Connection;
    const { hosted, bus } = await host({
      name: 'host-test-no-bus',
      uses: { bus: false },
      mongo: unreachable,
      busDown: true,
    });
    const metricsServer = await startMetricsServer({ host: '127.0.0.1', port: 0 });
    try {
      expect((await readyz(hosted)).status).toBe(200);
      // Once the probe of the database it uses has reported, the bus it does not use is absent.
      const text = await waitFor(async () => {
        const scraped = await scrape(metricsServer.url);
        return /^marquee_dependency_up\{service="host-test-no-bus",dependency="mongo"\} 0/m.test(
          scraped,
        )
          ? scraped
          : undefined;
      });
      expect(text).not.toMatch(/service="host-test-no-bus",dependency="event-bus"/);
    } finally {
      await metricsServer.close();
      await hosted.stop();
      await bus.close();
    }
  });

  it('answers 503 while its own checks fail and from the moment it stops', async () => {
    const bus = createMemoryBus({ source: '//test' });
    await bus.start();
    let caughtUp = false;
    let stopReadiness: { status: number; checks: object } | undefined;
    const hosted: HostedService = await hostService(
      { name: 'host-test', logger, bus, mongo: undefined },
      {
        readiness: { 'read-model': async () => caughtUp },
        // Runs inside stop(), before the servers close: what a probe sees while it drains.
        beforeStop: async () => {
          stopReadiness = await readyz(hosted);
        },
      },
      { host: '127.0.0.1', httpPort: 0, grpcPort: 0, uses: { bus: false, mongo: false } },
    );
    try {
      expect(await readyz(hosted)).toEqual({
        status: 503,
        checks: { serving: true, 'read-model': false },
      });
      caughtUp = true;
      expect((await readyz(hosted)).status).toBe(200);
    } finally {
      await hosted.stop();
      await bus.close();
    }
    expect(stopReadiness).toEqual({ status: 503, checks: { serving: false, 'read-model': true } });
  });
});

async function scrape(url: string): Promise<string> {
  const response = await fetch(url);
  return response.text();
}

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
