import { randomBytes } from 'node:crypto';
import { createMemoryBus } from '@marquee/platform/bus';
import { createLogger } from '@marquee/platform/logger';
import { hostService, type HostedService } from '@marquee/platform/service';
import { partnerReferenceService } from '@marquee/partner-reference';

/** The 3P API implementation under test. */
export interface ConformanceTarget {
  /** Base URL of the API, `/v1` included. */
  baseUrl: string;
  /** The OAuth client-credentials token endpoint. */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** A venue whose events the suite reads. */
  venue: string;
  /** Run bookings and orders (they change the partner's inventory: a test system only). */
  runtime: boolean;
  close(): Promise<void>;
}

/**
 * The target from the environment, for a partner checking its own implementation:
 * `PARTNER_BASE_URL`, `PARTNER_TOKEN_URL`, `PARTNER_CLIENT_ID`, `PARTNER_CLIENT_SECRET`,
 * `PARTNER_VENUE`, and `PARTNER_RUNTIME=1` to also book, order, print and cancel. Without them,
 * partner-reference itself, started in this process with its demo inventory.
 */
export async function conformanceTarget(
  env: NodeJS.ProcessEnv = process.env,
): Promise<ConformanceTarget> {
  if (env.PARTNER_BASE_URL) {
    const need = (name: string): string => {
      const value = env[name];
      if (!value) throw new Error(`conformance: ${name} is required with PARTNER_BASE_URL`);
      return value;
    };
    return {
      baseUrl: env.PARTNER_BASE_URL.replace(/\/$/, ''),
      tokenUrl: need('PARTNER_TOKEN_URL'),
      clientId: need('PARTNER_CLIENT_ID'),
      clientSecret: need('PARTNER_CLIENT_SECRET'),
      venue: need('PARTNER_VENUE'),
      runtime: env.PARTNER_RUNTIME === '1',
      close: async () => undefined,
    };
  }
  return startPartnerReference();
}

async function startPartnerReference(): Promise<ConformanceTarget> {
  const clientId = `conformance-${randomBytes(3).toString('hex')}`;
  const clientSecret = randomBytes(24).toString('base64url');
  const adminToken = randomBytes(24).toString('base64url');
  const logger = createLogger({ service: 'conformance', level: 'warn' });
  const bus = createMemoryBus({ source: 'conformance' });
  await bus.start();
  const config = partnerReferenceService.loadConfig({
    NODE_ENV: 'development',
    HTTP_PORT: '0',
    LOG_LEVEL: 'warn',
    PARTNER_ADMIN_TOKEN: adminToken,
    PARTNER_CLIENT_ID: clientId,
    PARTNER_CLIENT_SECRET: clientSecret,
    PARTNER_SEED_DEMO: 'true',
  });
  const infra = { name: 'partner-reference', logger, bus, mongo: undefined };
  const hosted: HostedService = await hostService(
    infra,
    await partnerReferenceService.compose(infra, config),
    { host: '127.0.0.1', httpPort: 0, grpcPort: 0 },
  );
  const origin = `http://127.0.0.1:${hosted.httpPort}`;
  const venues = await fetch(`${origin}/admin/v1/venues`, {
    headers: { authorization: `Bearer ${adminToken}` },
  });
  const listed = (await venues.json()) as { venues: Array<{ venue_id: string }> };
  const venue = listed.venues[0]?.venue_id;
  if (!venue) throw new Error('conformance: partner-reference seeded no venue');
  return {
    baseUrl: `${origin}/v1`,
    tokenUrl: `${origin}/oauth/token`,
    clientId,
    clientSecret,
    venue,
    runtime: true,
    close: async () => {
      await hosted.stop();
      await bus.close();
    },
  };
}
