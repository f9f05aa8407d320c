import { randomBytes } from 'node:crypto';
import { createMemoryBus } from '@marquee/platform/bus';
import type { Logger } from '@marquee/platform/logger';
import { hostService, type HostedService } from '@marquee/platform/service';
import { edgeGatewayService } from '@marquee/edge-gateway';
import { backendServices, bootable, type Bootable } from './services.js';

export interface EmbeddedOptions {
  host: string;
  /** Edge (public API) port; 0 = ephemeral. */
  port: number;
  /** partner-reference (3P API) port; 0 = ephemeral. */
  partnerPort: number;
  /** Generated when absent. */
  adminToken?: string | undefined;
  logger: Logger;
  /** Passed to every service's config loader (LOG_LEVEL and the like); never KAFKA_BROKERS or MONGO_URL. */
  env?: NodeJS.ProcessEnv;
}

export interface EmbeddedMarquee {
  baseUrl: string;
  partnerUrl: string;
  adminToken: string;
  adminTokenGenerated: boolean;
  services: ReadonlyArray<HostedService>;
  stop(): Promise<void>;
}

/**
 * SYSTEM.md §6, embedded default: every service in this process, one in-memory event bus, in-memory
 * repositories. Each service still gets its own gRPC server (on an ephemeral loopback port) and is
 * called through it, so the embedded default exercises the same code paths as the distributed mode.
 */
export async function startEmbedded(options: EmbeddedOptions): Promise<EmbeddedMarquee> {
  const adminToken = options.adminToken ?? randomBytes(24).toString('base64url');
  const bus = createMemoryBus({ source: 'marquee-embedded' });
  await bus.start();
  // Embedded means in-memory: infrastructure variables of the caller's shell are ignored on purpose.
  const { KAFKA_BROKERS: _k, MONGO_URL: _m, ...baseEnv } = options.env ?? {};
  const hosted: HostedService[] = [];

  const start = async (service: Bootable, env: NodeJS.ProcessEnv): Promise<HostedService> => {
    const infra = {
      name: service.name,
      logger: options.logger.child({ service: service.name }),
      bus,
      mongo: undefined,
    };
    const { parts, httpPort } = await service.boot(infra, {
      ...baseEnv,
      NODE_ENV: 'development',
      HOST: options.host,
      ...env,
    });
    const running = await hostService(infra, parts, { host: options.host, httpPort, grpcPort: 0 });
    hosted.push(running);
    return running;
  };

  try {
    const edgeEnv: NodeJS.ProcessEnv = { ADMIN_TOKEN: adminToken, HTTP_PORT: String(options.port) };
    let partnerPort = options.partnerPort;
    for (const { service, edgeAddressKey } of backendServices) {
      const isPartner = service.name === 'partner-reference';
      const running = await start(service, {
        HTTP_PORT: isPartner ? String(options.partnerPort) : '0',
        ...(isPartner ? { ADMIN_TOKEN: adminToken } : {}),
      });
      if (isPartner) partnerPort = running.httpPort ?? partnerPort;
      if (edgeAddressKey) edgeEnv[edgeAddressKey] = `${options.host}:${running.grpcPort}`;
    }
    const edge = await start(bootable(edgeGatewayService), edgeEnv);
    const stop = async () => {
      for (const service of [...hosted].reverse()) await service.stop();
      await bus.close();
    };
    return {
      baseUrl: `http://${options.host}:${edge.httpPort}`,
      partnerUrl: `http://${options.host}:${partnerPort}`,
      adminToken,
      adminTokenGenerated: options.adminToken === undefined,
      services: hosted,
      stop,
    };
  } catch (error) {
    for (const service of [...hosted].reverse()) await service.stop().catch(() => undefined);
    await bus.close().catch(() => undefined);
    throw error;
  }
}
