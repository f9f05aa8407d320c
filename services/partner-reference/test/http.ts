import { createLogger } from '@marquee/platform/logger';
import { createHttpServer } from '@marquee/platform/http';
import type { FastifyInstance } from 'fastify';
import type { Connection } from 'mongoose';
import { loadPartnerReferenceConfig } from '../src/config.js';
import { buildPartnerReference, type PartnerReference } from '../src/service.js';
import type { ManualClock } from './fixtures.js';

export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
/** The platform's admin token, present in the environment too: it must not open the back office. */
export const PLATFORM_ADMIN_TOKEN = 'platform-admin-token-0123456789';
export const CLIENT_ID = 'platform-client';
export const CLIENT_SECRET = 'platform-client-secret-0123456789';

export interface HttpHarness {
  http: FastifyInstance;
  partner: PartnerReference;
  /** Every status answered so far (tests assert none is a 5xx). */
  statuses: number[];
  admin: { authorization: string };
  bearer(scope?: string): Promise<{ authorization: string }>;
  close(): Promise<void>;
}

/** partner-reference's routes on the platform's HTTP server, as the service hosts them. */
export async function httpHarness(
  options: { mongo?: Connection; clock?: ManualClock; env?: NodeJS.ProcessEnv } = {},
): Promise<HttpHarness> {
  const logger = createLogger({ service: 'partner-reference-test', level: 'silent' });
  const config = loadPartnerReferenceConfig({
    PARTNER_ADMIN_TOKEN: ADMIN_TOKEN,
    ADMIN_TOKEN: PLATFORM_ADMIN_TOKEN,
    PARTNER_CLIENT_ID: CLIENT_ID,
    PARTNER_CLIENT_SECRET: CLIENT_SECRET,
    ...options.env,
  });
  const partner = await buildPartnerReference({ mongo: options.mongo, logger }, config, {
    quiet: true,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const http = createHttpServer({ logger });
  const statuses: number[] = [];
  http.addHook('onResponse', async (_request, reply) => {
    statuses.push(reply.statusCode);
  });
  await http.register(async (scope) => partner.routes(scope));
  await http.ready();
  return {
    http,
    partner,
    statuses,
    admin: { authorization: `Bearer ${ADMIN_TOKEN}` },
    async bearer(scope?: string) {
      const response = await http.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          ...(scope !== undefined ? { scope } : {}),
        }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      if (response.statusCode !== 200) throw new Error(`token: ${response.body}`);
      return { authorization: `Bearer ${response.json<{ access_token: string }>().access_token}` };
    },
    close: () => http.close(),
  };
}
