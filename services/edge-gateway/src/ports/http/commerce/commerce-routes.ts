import type { FastifyInstance } from 'fastify';
import type { DeveloperAccess } from '../../../app/backends.js';
import type { CommerceBackend, FanTokens } from '../../../app/commerce.js';
import { requireApiKey } from '../api-key-guard.js';
import type { ApiFamily } from '../families/family.js';
import { sendFamilyError } from '../families/register-family.js';
import { cartRoutes } from './cart-routes.js';
import { checkoutRoutes } from './checkout-routes.js';
import { ONLY_JSON, commerceRoutesContext } from './context.js';
import { offersRoutes } from './offers-routes.js';

/**
 * The commerce API (`/commerce/v2`): event offers for every app (offers-routes.ts), cart
 * deliveries for the cart's app (checkout-routes.ts), and the shopping services for apps an
 * operator approved, on behalf of a signed-in fan (cart-routes.ts).
 * Every route needs an API key (`api-key` or `apikey` query, or `X-SSL-CERT-UID`), checked before
 * the request is validated so every answer, a 400 too, carries the `Rate-Limit*` headers.
 */
export function commerceRoutes(backends: {
  commerce: CommerceBackend;
  fanTokens: FanTokens;
  developerAccess: DeveloperAccess;
}) {
  return async (familyScope: FastifyInstance, family: ApiFamily): Promise<void> => {
    // A child scope, so the key guard covers these routes and not the family's 404/405 answers.
    await familyScope.register(async (scope) => routes(scope, family));
  };

  async function routes(scope: FastifyInstance, family: ApiFamily): Promise<void> {
    requireApiKey(scope, family, backends.developerAccess, {
      from: [
        { in: 'query', name: 'api-key' },
        { in: 'query', name: 'apikey' },
        { in: 'header', name: 'x-ssl-cert-uid' },
      ],
      stage: 'preValidation',
    });

    // `.{format}` other than json: 406, whatever else the request says (so before validation).
    scope.addHook('preValidation', async (request, reply) => {
      const format = (request.params as { format?: unknown } | undefined)?.format;
      if (typeof format === 'string' && format !== 'json') {
        return sendFamilyError(reply, family, ONLY_JSON(format));
      }
    });

    const context = commerceRoutesContext(family, backends.commerce, backends.fanTokens);
    // In this order: the order of the paths in the OpenAPI document.
    offersRoutes(scope, context);
    checkoutRoutes(scope, context);
    await cartRoutes(scope, context);
  }
}
