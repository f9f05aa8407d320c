import type { FastifyInstance } from 'fastify';
import type { Backends } from '../../../app/backends.js';
import { requireApiKey } from '../api-key-guard.js';
import type { ApiFamily } from '../families/family.js';
import { eventRoutes, publishRoutes } from './event-routes.js';
import { listingRoutes } from './listing-routes.js';
import { publishingRouteOptions, type PublishingContext } from './route-options.js';

/**
 * The publishing family: POST creates an event, PUT replaces it, DELETE removes it (update and
 * delete are our design, see services/publisher/README.md), GET reads one or lists the app's
 * events (listing-routes.ts). Each path exists with the `{version}` segment and without it (the
 * default `v2`). Every call needs `apikey`.
 */
export function publishingRoutes(backends: Backends) {
  return async (familyScope: FastifyInstance, family: ApiFamily): Promise<void> => {
    // The key guard lives in a child scope so that it covers these routes only: an unknown path
    // under /publish still answers the family's 404 (and a wrong method its 405) without a key.
    await familyScope.register(async (scope) => {
      requireApiKey(scope, family, backends.developerAccess, {
        from: [{ in: 'query', name: 'apikey' }],
      });
      const context: PublishingContext = {
        publishing: backends.publishing,
        common: publishingRouteOptions(family),
      };
      // In this order: the order of the paths in the OpenAPI document.
      publishRoutes(scope, context);
      listingRoutes(scope, context);
      eventRoutes(scope, context);
    });
  };
}
