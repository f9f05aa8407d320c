/**
 * OAuth 2.0 client-credentials scopes of the 3P API. The first two are the ones the API names; the
 * other three cover the operations it leaves without a scope, one per area of the API (availability,
 * runtime transactions, reconciliation reads). A token request without `scope` is granted every
 * scope the client is allowed; one with `scope` gets exactly those (a scope the client may not have
 * is `invalid_scope`).
 */
export const PartnerScope = {
  CHECK: 'check:3p-system',
  INGESTION: 'ingestion:3p-system',
  AVAILABILITY: 'availability:3p-system',
  RUNTIME: 'runtime:3p-system',
  RECONCILIATION: 'reconciliation:3p-system',
} as const;

export type PartnerScopeValue = (typeof PartnerScope)[keyof typeof PartnerScope];

export const allPartnerScopes: readonly PartnerScopeValue[] = Object.freeze(
  Object.values(PartnerScope),
);

/**
 * Which scope each operation requires (method and path relative to the base URL). `GET /orders/{id}`
 * is both a runtime read (the print flow) and a reconciliation read: either scope is accepted.
 */
export const operationScopes: ReadonlyArray<{
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  scopes: readonly PartnerScopeValue[];
}> = Object.freeze([
  { method: 'GET', path: '/healthcheck', scopes: [PartnerScope.CHECK] },
  { method: 'GET', path: '/events', scopes: [PartnerScope.INGESTION] },
  { method: 'GET', path: '/events/{event_id}', scopes: [PartnerScope.INGESTION] },
  { method: 'GET', path: '/manifests/{manifest_id}', scopes: [PartnerScope.INGESTION] },
  { method: 'GET', path: '/logos/{logo_id}', scopes: [PartnerScope.INGESTION] },
  { method: 'GET', path: '/tax-plans/{tax_plan_id}', scopes: [PartnerScope.INGESTION] },
  {
    method: 'GET',
    path: '/events/{event_id}/availability',
    scopes: [PartnerScope.AVAILABILITY],
  },
  { method: 'POST', path: '/bookings', scopes: [PartnerScope.RUNTIME] },
  { method: 'DELETE', path: '/bookings/{inventory_token}', scopes: [PartnerScope.RUNTIME] },
  { method: 'POST', path: '/orders', scopes: [PartnerScope.RUNTIME] },
  { method: 'POST', path: '/orders/{inventory_order}', scopes: [PartnerScope.RUNTIME] },
  {
    method: 'GET',
    path: '/orders/{inventory_order}',
    scopes: [PartnerScope.RUNTIME, PartnerScope.RECONCILIATION],
  },
  { method: 'GET', path: '/orders', scopes: [PartnerScope.RECONCILIATION] },
]);
