import type { FastifyInstance } from 'fastify';
import type { TokenThrottle } from '../../app/token-throttle.js';
import { adminRoutes, type AdminDependencies } from './admin-routes.js';
import { oauthRoutes } from './oauth-routes.js';
import { v1Routes, type V1Dependencies } from './v1-routes.js';

export type PartnerHttpDependencies = V1Dependencies &
  AdminDependencies & { tokenThrottle?: TokenThrottle };

/**
 * Every route of partner-reference on its one HTTP port: the 3P API under `/v1`, its token
 * endpoint `/oauth/token`, the back office under `/admin/v1`. Each in its own scope, with its own
 * error bodies and authentication.
 */
export function partnerHttpRoutes(deps: PartnerHttpDependencies) {
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(async (scope) => v1Routes(scope, deps), { prefix: '/v1' });
    await app.register(async (scope) => oauthRoutes(scope, deps));
    await app.register(async (scope) => adminRoutes(scope, deps), { prefix: '/admin/v1' });
  };
}
