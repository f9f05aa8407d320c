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

/** A developer app and a fan created at start, so the OAuth flow and the APIs can be tried at once. */
export interface EmbeddedDemo {
  apiKey: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  fanEmail: string;
  fanPassword: string;
}

export interface EmbeddedMarquee {
  baseUrl: string;
  demo: EmbeddedDemo;
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
    for (const { service, edgeAddressKey, needs = [] } of backendServices) {
      const isPartner = service.name === 'partner-reference';
      const calls: NodeJS.ProcessEnv = {};
      for (const key of needs) {
        if (!edgeEnv[key])
          throw new Error(`embedded: ${service.name} needs ${key}, not started before it`);
        calls[key] = edgeEnv[key];
      }
      const running = await start(service, {
        HTTP_PORT: isPartner ? String(options.partnerPort) : '0',
        ...(isPartner ? { ADMIN_TOKEN: adminToken } : {}),
        ...calls,
      });
      if (isPartner) partnerPort = running.httpPort ?? partnerPort;
      if (edgeAddressKey) edgeEnv[edgeAddressKey] = `${options.host}:${running.grpcPort}`;
      // The edge proxies /oauth/* to auth-gateway's HTTP (the Helm chart sets the same variable).
      if (service.name === 'auth-gateway')
        edgeEnv.HTTP_URL_AUTH_GATEWAY = `http://${options.host}:${running.httpPort}`;
    }
    const edge = await start(bootable(edgeGatewayService), edgeEnv);
    // Every consumer group has subscribed: from now on a record is released once all have read it,
    // so a long-running embedded process does not keep every record it ever carried
    // (MemoryBrokerOptions.retain). Not before: a service started later must see what an earlier
    // one already read.
    bus.broker.retainUnconsumed();
    const stop = async () => {
      for (const service of [...hosted].reverse()) await service.stop();
      await bus.close();
    };
    const baseUrl = `http://${options.host}:${edge.httpPort}`;
    const demo = await createDemo(baseUrl, adminToken);
    return {
      baseUrl,
      demo,
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

/** Provisions the demo app and fan through the public admin API, i.e. through the running AuthService. */
async function createDemo(baseUrl: string, adminToken: string): Promise<EmbeddedDemo> {
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const response = await fetch(`${baseUrl}/admin/v1/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) {
      throw new Error(
        `embedded: creating the demo ${path} failed: ${response.status} ${await response.text()}`,
      );
    }
    return (await response.json()) as T;
  };
  const redirectUri = 'http://localhost:3000/callback';
  const app = await post<{ apiKey: string; clientId: string; clientSecret: string }>('apps', {
    name: 'Marquee demo app',
    redirectUris: [redirectUri],
  });
  const fanEmail = 'fan@example.com';
  const fanPassword = randomBytes(9).toString('base64url');
  await post<{ id: string }>('fans', { email: fanEmail, password: fanPassword });
  return { ...app, redirectUri, fanEmail, fanPassword };
}
