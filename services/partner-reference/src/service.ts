import { randomBytes } from 'node:crypto';
import type { ServiceInfra, ServiceParts } from '@marquee/platform/service';
import { openServiceStores } from '@marquee/platform/store';
import { systemClock, type Clock } from '@marquee/platform/kernel';
import { randomIds } from './adapters/clock-and-ids.js';
import { createPartnerRepositories } from './adapters/stores.js';
import { BackOffice } from './app/back-office.js';
import { ClientCredentials } from './app/credentials.js';
import { TokenThrottle } from './app/token-throttle.js';
import { Drills } from './app/drills.js';
import { PartnerApp } from './app/partner-app.js';
import { seedDemoInventory } from './app/seed.js';
import { shouldSeedDemo, type PartnerReferenceConfig } from './config.js';
import { partnerHttpRoutes } from './ports/http/routes.js';

export interface PartnerReference {
  app: PartnerApp;
  backOffice: BackOffice;
  credentials: ClientCredentials;
  drills: Drills;
  adminToken: string;
  clientId: string;
  /** The routes of the service's HTTP port (`ServiceParts.http`). */
  routes: ReturnType<typeof partnerHttpRoutes>;
  storage: 'memory' | 'mongo';
}

/**
 * Builds partner-reference over the process's storage (Mongo when `infra.mongo`, memory otherwise),
 * without starting anything: route tests inject into `routes`, the composition root serves them.
 * Generated credentials are printed once on stdout, never through the logger.
 */
export async function buildPartnerReference(
  infra: Pick<ServiceInfra, 'mongo' | 'logger'>,
  config: PartnerReferenceConfig,
  options: { clock?: Clock; quiet?: boolean } = {},
): Promise<PartnerReference> {
  const clock = options.clock ?? systemClock;
  const print = (line: string) => {
    if (!options.quiet) console.log(line);
  };
  let adminToken = config.PARTNER_ADMIN_TOKEN;
  if (adminToken === undefined) {
    if (config.NODE_ENV === 'production')
      throw new Error(
        'PARTNER_ADMIN_TOKEN (or PARTNER_ADMIN_TOKEN_FILE) is required in production',
      );
    adminToken = randomBytes(24).toString('base64url');
    print(
      `partner-reference: PARTNER_ADMIN_TOKEN not set; generated back-office token: ${adminToken}`,
    );
  } else if (config.ADMIN_TOKEN !== undefined && adminToken === config.ADMIN_TOKEN) {
    throw new Error(
      "PARTNER_ADMIN_TOKEN must differ from the platform's ADMIN_TOKEN (the back office has its own)",
    );
  }
  const clientId = config.PARTNER_CLIENT_ID ?? `partner-client-${randomBytes(6).toString('hex')}`;
  let clientSecret = config.PARTNER_CLIENT_SECRET;
  if (clientSecret === undefined) {
    clientSecret = randomBytes(32).toString('base64url');
    print(
      `partner-reference: PARTNER_CLIENT_SECRET not set; generated OAuth client ${clientId} with secret: ${clientSecret}`,
    );
  } else if (config.PARTNER_CLIENT_ID === undefined) {
    print(`partner-reference: PARTNER_CLIENT_ID not set; generated OAuth client id: ${clientId}`);
  }

  const { storage: repositories, kind } = await openServiceStores(infra, createPartnerRepositories);
  const app = new PartnerApp({
    repositories,
    clock,
    ids: randomIds,
    bookingTimeoutMs: config.BOOKING_TIMEOUT_MS,
    partialCancel: config.PARTNER_PARTIAL_CANCEL,
  });
  const backOffice = new BackOffice({ repositories, clock, ids: randomIds });
  const credentials = new ClientCredentials({
    clientId,
    clientSecret,
    ttlSeconds: config.PARTNER_TOKEN_TTL_SECONDS,
    clock,
  });
  const drills = new Drills();
  return {
    app,
    backOffice,
    credentials,
    drills,
    adminToken,
    clientId,
    routes: partnerHttpRoutes({
      app,
      backOffice,
      credentials,
      drills,
      adminToken,
      tokenThrottle: new TokenThrottle(config.PARTNER_TOKEN_FAILURES_PER_MINUTE),
    }),
    storage: kind,
  };
}

/**
 * Composition root of partner-reference: repairs what a crash may have left, seeds the demo
 * inventory when asked, serves the 3P API, its token endpoint and the back office on the HTTP port,
 * and sweeps expired bookings on an interval. A single writer by design (see README, "Storage").
 */
export async function composePartnerReference(
  infra: ServiceInfra,
  config: PartnerReferenceConfig,
): Promise<ServiceParts> {
  const { logger } = infra;
  const partner = await buildPartnerReference(infra, config);
  const repaired = await partner.app.repair();
  if (repaired > 0) logger.warn({ repaired }, 'inventories repaired at start-up');
  if (shouldSeedDemo(config, partner.storage)) {
    const seeded = await seedDemoInventory(partner.backOffice);
    if (seeded !== undefined) logger.info(seeded, 'demo inventory seeded');
  }
  let sweeper: NodeJS.Timeout | undefined;
  let sweeping = false;
  const sweep = async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      const expired = await partner.app.sweep();
      partner.credentials.purgeExpired();
      if (expired > 0) logger.info({ expired }, 'expired bookings swept');
    } catch (error) {
      logger.warn({ err: error }, 'sweep failed; retrying at the next interval');
    } finally {
      sweeping = false;
    }
  };
  return {
    http: partner.routes,
    start: async () => {
      sweeper = setInterval(() => void sweep(), config.PARTNER_SWEEP_INTERVAL_MS);
      sweeper.unref();
    },
    stop: async () => {
      clearInterval(sweeper);
    },
  };
}
