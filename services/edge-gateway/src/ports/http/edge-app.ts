import type { FastifyInstance } from 'fastify';
import type { Backends } from '../../app/backends.js';
import { adminRoutes } from './admin/admin-routes.js';
import { admin, allFamilies } from './families/catalog.js';
import { registerFamily } from './families/register-family.js';
import { registerOpenApi } from './openapi.js';

export interface EdgeHttpOptions {
  adminToken: string;
  version: string;
  backends: Backends;
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
  for (const family of allFamilies) {
    if (family === admin) {
      await registerFamily(app, family, adminRoutes(options.backends, options.adminToken));
    } else {
      await registerFamily(app, family, () => undefined);
    }
  }
}
