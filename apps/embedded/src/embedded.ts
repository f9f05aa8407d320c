import { randomBytes } from 'node:crypto';
import { createMemoryBus } from '@marquee/platform/bus';
import type { Logger } from '@marquee/platform/logger';
import { startMetricsServer } from '@marquee/platform/metrics';
import {
  callVariables,
  hostService,
  type DevelopmentRun,
  type HostedService,
} from '@marquee/platform/service';
import { hostedServices, startOrder, type Bootable } from './services.js';

export interface EmbeddedOptions {
  host: string;
  /** Edge (public API) port; 0 = ephemeral. */
  port: number;
  /** partner-reference (3P API) port; 0 = ephemeral. */
  partnerPort: number;
  /** Generated when absent. */
  adminToken?: string | undefined;
  /**
   * The demo partner's OAuth client (partner-reference's PARTNER_CLIENT_ID and
   * PARTNER_CLIENT_SECRET, registered with the connector); each generated when absent.
   */
  partnerClient?: { id?: string | undefined; secret?: string | undefined };
  logger: Logger;
  /** Passed to every service's config loader (LOG_LEVEL and the like); never KAFKA_BROKERS or MONGO_URL. */
  env?: NodeJS.ProcessEnv;
  /**
   * Serve the whole process's Prometheus metrics on this port of 127.0.0.1 (0 = ephemeral);
   * absent: no metrics server. Always loopback: the metrics of a development run are for its
   * developer, whatever `host` the APIs listen on.
   */
  metricsPort?: number;
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

/** partner-reference as registered with the connector at start. */
export interface EmbeddedPartner {
  /** The connector's registration id. */
  id: string;
  clientId: string;
  clientSecret: string;
  /** Whether the client id and secret were generated for this run (not given in `partnerClient`). */
  clientIdGenerated: boolean;
  clientSecretGenerated: boolean;
  /** Bearer token of partner-reference's back office (its own, not the platform's). */
  adminToken: string;
  venues: string[];
  /** Events of the demo venues found in discovery when the start finished. */
  importedEvents: number;
}

export interface EmbeddedMarquee {
  baseUrl: string;
  demo: EmbeddedDemo;
  partnerUrl: string;
  partner: EmbeddedPartner;
  adminToken: string;
  adminTokenGenerated: boolean;
  services: ReadonlyArray<HostedService>;
  /** `http://127.0.0.1:<port>/metrics` when `metricsPort` was given. */
  metricsUrl: string | undefined;
  stop(): Promise<void>;
}

/**
 * The embedded default (docs/run-modes.md): every service in this process, one in-memory event bus, in-memory
 * repositories. Each service still gets its own gRPC server (on an ephemeral loopback port) and is
 * called through it, so the embedded default exercises the same code paths as the distributed mode.
 *
 * The runner knows no service by name: each ServiceDefinition says what it uses (only that is
 * probed, `marquee_dependency_up`), which services it calls (started before it, their addresses in its environment) and
 * what a development run gives it (`development`: a public port, the run's admin token, shared
 * credentials, demo settings).
 */
export async function startEmbedded(options: EmbeddedOptions): Promise<EmbeddedMarquee> {
  const adminToken = options.adminToken ?? randomBytes(24).toString('base64url');
  const metricsServer =
    options.metricsPort === undefined
      ? undefined
      : await startMetricsServer({ host: '127.0.0.1', port: options.metricsPort });
  const bus = createMemoryBus({ source: 'marquee-embedded' });
  await bus.start();
  const hosted: HostedService[] = [];
  try {
    // The partner client given by the caller; run.shared() generates whatever is not.
    const { id: clientId, secret: clientSecret } = options.partnerClient ?? {};
    const run = developmentRun(adminToken, options.partnerClient);
    const { api, partner: partnerService } = await startServices(options, bus, run, hosted);
    if (!api || !partnerService)
      throw new Error('embedded: no service took the public API port or the partner port');
    // Every consumer group has subscribed: from now on a record is released once all have read it,
    // so a long-running embedded process does not keep every record it ever carried
    // (MemoryBrokerOptions.retain). Not before: a service started later must see what an earlier
    // one already read.
    bus.broker.retainUnconsumed();
    const stop = async () => {
      for (const service of [...hosted].reverse()) await service.stop();
      await bus.close();
      await metricsServer?.close();
    };
    const baseUrl = `http://${options.host}:${api.httpPort}`;
    const partnerUrl = `http://${options.host}:${partnerService.httpPort}`;
    const demo = await createDemo(baseUrl, adminToken);
    // The demo partner's OAuth client: the credentials it was started with (`shared`: the
    // caller's `partnerClient`, else generated).
    // The partner's back office has its own token (`shared`), not the run's admin token.
    const registered = await registerDemoPartner(baseUrl, partnerUrl, adminToken, {
      id: run.shared('PARTNER_CLIENT_ID'),
      secret: run.shared('PARTNER_CLIENT_SECRET'),
      adminToken: run.shared('PARTNER_ADMIN_TOKEN'),
    });
    const partner: EmbeddedPartner = {
      ...registered,
      clientIdGenerated: clientId === undefined,
      clientSecretGenerated: clientSecret === undefined,
    };
    return {
      baseUrl,
      demo,
      partnerUrl,
      partner,
      adminToken,
      adminTokenGenerated: options.adminToken === undefined,
      services: hosted,
      metricsUrl: metricsServer?.url,
      stop,
    };
  } catch (error) {
    for (const service of [...hosted].reverse()) await service.stop().catch(() => undefined);
    await bus.close().catch(() => undefined);
    await metricsServer?.close();
    throw error;
  }
}

type EmbeddedBus = ReturnType<typeof createMemoryBus>;

/** What a development run gives the services: the admin token and credentials shared by name. */
function developmentRun(
  adminToken: string,
  partnerClient: EmbeddedOptions['partnerClient'],
): DevelopmentRun {
  const shared = new Map<string, string>();
  const { id: clientId, secret: clientSecret } = partnerClient ?? {};
  if (clientId !== undefined) shared.set('PARTNER_CLIENT_ID', clientId);
  if (clientSecret !== undefined) shared.set('PARTNER_CLIENT_SECRET', clientSecret);
  return {
    adminToken,
    shared(name) {
      let value = shared.get(name);
      if (value === undefined) shared.set(name, (value = randomBytes(24).toString('base64url')));
      return value;
    },
  };
}

/**
 * Starts every service in dependency order, each with the addresses of the services it calls
 * (`hosted` collects them as they start): the services on the public API and partner ports.
 */
async function startServices(
  options: EmbeddedOptions,
  bus: EmbeddedBus,
  run: DevelopmentRun,
  hosted: HostedService[],
): Promise<Partial<Record<'api' | 'partner', HostedService>>> {
  const publicPorts = { api: options.port, partner: options.partnerPort };
  const started = new Map<string, HostedService>();
  const onPublicPort: Partial<Record<keyof typeof publicPorts, HostedService>> = {};
  for (const service of startOrder(hostedServices)) {
    const env: NodeJS.ProcessEnv = { HTTP_PORT: '0', ...service.development.env?.(run) };
    const publicPort = service.development.publicPort;
    if (publicPort) env.HTTP_PORT = String(publicPorts[publicPort]);
    for (const callee of service.calls) {
      Object.assign(env, callVariables(callee, { host: options.host, ...started.get(callee)! }));
    }
    // Called from background work that retries: an address when the callee is up already.
    for (const callee of service.callsLater) {
      const up = started.get(callee);
      if (up) Object.assign(env, callVariables(callee, { host: options.host, ...up }));
    }
    const running = await startService(options, bus, service, env);
    hosted.push(running);
    started.set(service.name, running);
    if (publicPort) onPublicPort[publicPort] = running;
  }
  return onPublicPort;
}

/** Boots one service on the shared bus and hosts it (gRPC on an ephemeral loopback port). */
async function startService(
  options: EmbeddedOptions,
  bus: EmbeddedBus,
  service: Bootable,
  env: NodeJS.ProcessEnv,
): Promise<HostedService> {
  // Embedded means in-memory: infrastructure variables of the caller's shell are ignored on purpose.
  const { KAFKA_BROKERS: _k, MONGO_URL: _m, ...baseEnv } = options.env ?? {};
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
  return hostService(infra, parts, {
    host: options.host,
    httpPort,
    grpcPort: 0,
    callers: service.callers,
    ...(service.uses ? { uses: service.uses } : {}),
  });
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
  const app = await post<{
    appId: string;
    apiKey: string;
    clientId: string;
    clientSecret: string;
  }>('apps', {
    name: 'Marquee demo app',
    redirectUris: [redirectUri],
  });
  // The demo app distributes through the partner cart, as an approved distributor's app does.
  const granted = await fetch(`${baseUrl}/admin/v1/apps/${encodeURIComponent(app.appId)}/access`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ partnerDistribution: true }),
  });
  if (!granted.ok) {
    throw new Error(
      `embedded: granting the demo app partner distribution failed: ${granted.status} ${await granted.text()}`,
    );
  }
  const fanEmail = 'fan@example.com';
  const fanPassword = randomBytes(9).toString('base64url');
  await post<{ id: string }>('fans', { email: fanEmail, password: fanPassword });
  return { ...app, redirectUri, fanEmail, fanPassword };
}

/**
 * Registers the service on the partner port (partner-reference, seeded with demo venues and
 * events) with the connector through the public admin API, exactly as an operator registers a real
 * partner, and waits (bounded) until its first import has landed, so the printed URLs already show
 * partner inventory.
 */
async function registerDemoPartner(
  baseUrl: string,
  partnerUrl: string,
  adminToken: string,
  client: { id: string; secret: string; adminToken: string },
): Promise<Omit<EmbeddedPartner, 'clientIdGenerated' | 'clientSecretGenerated'>> {
  const auth = { authorization: `Bearer ${adminToken}` };
  const listed = await fetch(`${partnerUrl}/admin/v1/venues`, {
    headers: { authorization: `Bearer ${client.adminToken}` },
  });
  if (!listed.ok) {
    throw new Error(`embedded: listing the partner's venues failed: ${listed.status}`);
  }
  const venues = ((await listed.json()) as { venues: Array<{ venue_id: string }> }).venues.map(
    (venue) => venue.venue_id,
  );
  const registered = await fetch(`${baseUrl}/admin/v1/partners`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Marquee demo partner',
      baseUrl: `${partnerUrl}/v1`,
      authUrl: `${partnerUrl}/oauth/token`,
      clientId: client.id,
      clientSecret: client.secret,
      venues,
    }),
  });
  if (registered.status !== 201) {
    throw new Error(
      `embedded: registering the demo partner failed: ${registered.status} ${await registered.text()}`,
    );
  }
  const { id } = (await registered.json()) as { id: string };
  const deadline = Date.now() + 10_000;
  let importedEvents = 0;
  while (Date.now() < deadline) {
    const partner = await fetch(`${baseUrl}/admin/v1/partners/${id}`, { headers: auth });
    if (partner.ok) {
      const body = (await partner.json()) as {
        venues?: Array<{ lastImportAt?: string; lastImportEvents?: number }>;
      };
      const done = body.venues ?? [];
      if (done.length > 0 && done.every((venue) => venue.lastImportAt)) {
        importedEvents = done.reduce((sum, venue) => sum + (venue.lastImportEvents ?? 0), 0);
        break;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    id,
    clientId: client.id,
    clientSecret: client.secret,
    adminToken: client.adminToken,
    venues,
    importedEvents,
  };
}
