import type { FastifyInstance } from 'fastify';
import { DEFAULT_FEES, type FeeSchedule } from '@marquee/platform/money';
import type { Backends } from '../../app/backends.js';
import { requireAdminToken } from './admin/admin-auth.js';
import { admin, allFamilies } from './families/catalog.js';
import { registerFamily } from './families/register-family.js';
import { familyRoutes } from './family-routes.js';
import { registerOpenApi } from './openapi.js';
import { registerStripeWebhook } from './webhooks/stripe-webhook.js';

export interface EdgeHttpOptions {
  adminToken: string;
  /** Also accepted on the admin API while `adminToken` replaces it (`ADMIN_TOKEN_PREVIOUS`). */
  previousAdminToken?: string;
  version: string;
  backends: Backends;
  /** The cart's fee schedule (the same `CART_*_FEE_*` settings); DEFAULT_FEES when not given. */
  fees?: FeeSchedule;
  /** The Stripe webhook endpoint's signing secret (`STRIPE_WEBHOOK_SECRET`); none: 503. */
  stripeWebhookSecret?: string;
}

/**
 * The public surface as a fastify plugin body: the OpenAPI document first (it must see every
 * route), then one scope per API family. Families whose service is not built yet still answer
 * their own 404/405 bodies, so clients see consistent errors from day one.
 */
export async function registerEdgeRoutes(
  app: FastifyInstance,
  options: EdgeHttpOptions,
): Promise<void> {
  await registerOpenApi(app, { version: options.version });
  const context = {
    backends: options.backends,
    adminToken: options.adminToken,
    fees: options.fees ?? DEFAULT_FEES,
  };
  for (const family of allFamilies) {
    const routes = (familyRoutes[family.id] ?? []).map((factory) => factory(context));
    await registerFamily(app, family, async (scope, f) => {
      // Every admin route, present and future, sits behind the admin token.
      if (family === admin)
        requireAdminToken(scope, options.adminToken, options.previousAdminToken);
      for (const register of routes) await register(scope, f);
    });
  }
  await registerStripeWebhook(app, {
    secret: options.stripeWebhookSecret,
    sink: options.backends.stripeWebhooks,
  });
}
