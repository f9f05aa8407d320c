import type { FeeSchedule } from '@marquee/platform/money';
import type { Backends } from '../../app/backends.js';
import { adminRoutes } from './admin/admin-routes.js';
import { appAccessAdminRoutes } from './admin/app-access-admin-routes.js';
import { commerceRoutes } from './commerce/commerce-routes.js';
import { dealsAdminRoutes } from './admin/deals-admin-routes.js';
import { gatesAdminRoutes } from './admin/gates-admin-routes.js';
import { onSaleAdminRoutes } from './admin/onsale-admin-routes.js';
import { ordersAdminRoutes } from './admin/orders-admin-routes.js';
import { partnersAdminRoutes } from './admin/partners-admin-routes.js';
import { reconciliationAdminRoutes } from './admin/reconciliation-admin-routes.js';
import { resaleAdminRoutes } from './admin/resale-admin-routes.js';
import { dealsRoutes } from './families/deals-routes.js';
import { discoveryV2Routes } from './discovery/discovery-v2-routes.js';
import { internationalRoutes } from './discovery/international-routes.js';
import { partnerCartRoutes } from './partner-cart/partner-cart-routes.js';
import type { FamilyRoutes } from './families/register-family.js';
import { gateRoutes } from './gate/gate-routes.js';
import { publishingRoutes } from './publishing/publishing-routes.js';
import { orderReadRoutes } from './secure-entry/order-read-routes.js';
import { secureRenderRoutes } from './secure-entry/secure-render-routes.js';
import { topPicksRoutes } from './top-picks/top-picks-routes.js';

export interface RouteContext {
  backends: Backends;
  adminToken: string;
  /** The platform's fees, as the cart charges them: totals shown include them (README, "Prices"). */
  fees: FeeSchedule;
}

/**
 * The routes of each API family, by family id (families/catalog.ts). An issue that builds a family
 * adds its route module here; a family without routes still answers its own 404/405 bodies.
 */
export const familyRoutes: Readonly<
  Record<string, ReadonlyArray<(context: RouteContext) => FamilyRoutes>>
> = {
  admin: [
    ({ backends }) => adminRoutes(backends),
    ({ backends }) => dealsAdminRoutes(backends),
    ({ backends }) => partnersAdminRoutes(backends),
    ({ backends }) => gatesAdminRoutes(backends),
    ({ backends }) => reconciliationAdminRoutes(backends),
    ({ backends }) => resaleAdminRoutes(backends),
    ({ backends }) => ordersAdminRoutes(backends),
    ({ backends }) => appAccessAdminRoutes(backends),
    ({ backends }) => onSaleAdminRoutes(backends),
  ],
  commerce: [({ backends }) => commerceRoutes(backends)],
  deals: [({ backends }) => dealsRoutes(backends)],
  discovery: [({ backends }) => discoveryV2Routes(backends)],
  'intl-discovery': [({ backends, fees }) => internationalRoutes(backends, fees)],
  // The partner cart; the secure-entry order read (POST /orders) is its own module of this family.
  'partner-cart': [
    ({ backends }) => partnerCartRoutes(backends),
    ({ backends }) => orderReadRoutes(backends),
  ],
  gate: [({ backends }) => gateRoutes(backends)],
  publishing: [({ backends }) => publishingRoutes(backends)],
  'secure-render': [({ backends }) => secureRenderRoutes(backends)],
  'top-picks': [({ backends }) => topPicksRoutes(backends)],
};
