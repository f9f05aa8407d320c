import type { FastifyInstance } from 'fastify';
import type { DeveloperAccess } from '../../../app/backends.js';
import type { PartnerCart } from '../../../app/partner-cart.js';
import type { ApiFamily } from '../families/family.js';
import { availabilityRoutes } from './availability-routes.js';
import { cartRoutes } from './cart-routes.js';
import { partnerCartContext } from './context.js';
import { partnerErrorHandler, redactPartnerSecrets, requirePartnerApiKey } from './errors.js';
import { noStore } from '../rate-limit-headers.js';
import { paymentRoutes } from './payment-routes.js';
import { createQueuePresence, queueRoutes } from './queue-routes.js';
import type { QueuePresenceTracker } from '../../../app/queue-presence.js';
import type { WaitingRoomBackend } from '../../../app/waiting-room.js';
import { shippingRoutes } from './shipping-routes.js';
import { trackingRoutes } from './tracking-routes.js';

/**
 * The partner cart (`/partners/v1`, and `/partners-preprod/v1` where every call is a sandbox
 * call): availability, reserve with polling, shipping, payment, commit, release and the tracking
 * pixel, over cart's CartService, one module per resource. Design, codes and amounts: README,
 * "Partner cart". `POST /orders` (the secure-entry order read) is another module of this family.
 */
export function partnerCartRoutes(backends: {
  partnerCart: PartnerCart;
  developerAccess: DeveloperAccess;
  waitingRoom: WaitingRoomBackend;
}) {
  // One presence tracker for the queue routes of every prefix: a replica reports its fans once.
  let presence: QueuePresenceTracker | undefined;
  return async (familyScope: FastifyInstance, family: ApiFamily): Promise<void> => {
    // A child scope: the key guard, validator and error handler cover these routes only, and an
    // unknown path still answers the family's 404 (a wrong method 405) without a key.
    await familyScope.register(async (scope) => routes(scope, family));
    // The waiting room: its own scope, so that fans joining and following the queue are not
    // refused because cart's reserves in flight are at their bound.
    await familyScope.register(async (scope) => {
      noStore(scope);
      scope.setErrorHandler(partnerErrorHandler(family));
      requirePartnerApiKey(scope, family, backends.developerAccess);
      const context = partnerCartContext(scope, family, backends.partnerCart);
      presence ??= createQueuePresence(backends.waitingRoom, scope.log);
      queueRoutes(scope, context, backends.waitingRoom, presence);
    });
    // The pixel is on public pages: its own scope, with the app's public tracking id instead of
    // the API key, and no quota spent.
    await familyScope.register(async (scope) => {
      scope.setErrorHandler(partnerErrorHandler(family));
      noStore(scope);
      const context = partnerCartContext(scope, family, backends.partnerCart);
      trackingRoutes(scope, context, backends.developerAccess);
    });
  };

  function routes(scope: FastifyInstance, family: ApiFamily): void {
    redactPartnerSecrets(scope);
    // Cart answers carry cart ids, the commit's answer the order token: never cached.
    noStore(scope);
    scope.setErrorHandler(partnerErrorHandler(family));
    const cart = backends.partnerCart;
    requirePartnerApiKey(scope, family, backends.developerAccess, () => cart.assertRoom?.());

    const context = partnerCartContext(scope, family, cart);
    // In this order: the order of the paths in the OpenAPI document.
    availabilityRoutes(scope, context);
    cartRoutes(scope, context);
    shippingRoutes(scope, context);
    paymentRoutes(scope, context);
  }
}
