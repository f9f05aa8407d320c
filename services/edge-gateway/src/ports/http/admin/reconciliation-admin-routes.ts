import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { CaseQuery, Reconciliation } from '../../../app/reconciliation.js';
import { AdminError, AdminId, OptionalDateTime, pagingQuery, PageInfo } from './admin-schemas.js';

const Id = AdminId;
const DateTime = OptionalDateTime;

const Case = Type.Object({
  id: Type.String(),
  partnerId: Type.String(),
  eventId: Type.String(),
  cartId: Type.Optional(Type.String()),
  orderId: Type.Optional(Type.String()),
  inventoryToken: Type.Optional(Type.String()),
  inventoryOrderId: Type.Optional(Type.String()),
  trigger: Type.Union(
    [
      'UNSPECIFIED',
      'PARTNER_CALL_FAILED',
      'STALE_BOOKING',
      'ORDER_MISMATCH',
      'CAPTURE_WITHOUT_ORDER',
      'ORDER_WITHOUT_CAPTURE',
    ].map((t) => Type.Literal(t)),
  ),
  outcome: Type.Union(
    ['OPEN', 'CONSISTENT', 'ORDER_CONFIRMED', 'ORDER_CANCELLED', 'BOOKING_RELEASED', 'MANUAL'].map(
      (o) => Type.Literal(o),
    ),
  ),
  detail: Type.String(),
  openedAt: DateTime,
  resolvedAt: DateTime,
  operatorAction: Type.Optional(
    Type.String({ description: 'What an operator must do to settle a money case.' }),
  ),
  paymentId: Type.Optional(Type.String({ description: "The processor's payment id." })),
});

const Report = Type.Object({
  eventId: Type.String(),
  partnerId: Type.String(),
  generatedAt: DateTime,
  periodStart: DateTime,
  periodEnd: DateTime,
  partnerTransactions: Type.Integer(),
  platformTransactions: Type.Integer(),
  matched: Type.Integer(),
  orphansCancelled: Type.Integer(),
  missingAtPartner: Type.Integer(),
  caseIds: Type.Array(Type.String()),
});

const CasesQuery = Type.Object(
  {
    openOnly: Type.Optional(Type.Boolean({ description: 'Only undecided cases' })),
    partnerId: Type.Optional(Id),
    ...pagingQuery,
  },
  { additionalProperties: false },
);

/**
 * Reconciliation (reconciler): cases newest first, one case, an event's reconciliation run now
 * and its latest report (404 before the first run). A run whose partner cannot be read is a 503.
 */
export function reconciliationAdminRoutes(backends: { reconciliation: Reconciliation }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const errors = { 400: AdminError, 401: AdminError, 503: AdminError, 504: AdminError };
    const security = [{ adminToken: [] }];
    scope.get(
      '/reconciliation/cases',
      {
        schema: {
          tags: ['admin'],
          summary: 'Reconciliation cases, newest first',
          security,
          querystring: CasesQuery,
          response: {
            200: Type.Object({
              cases: Type.Array(Case),
              page: PageInfo,
            }),
            ...errors,
          },
        },
      },
      async (request) => {
        const q = request.query as Partial<CaseQuery>;
        return backends.reconciliation.listCases({
          openOnly: q.openOnly ?? false,
          ...(q.partnerId ? { partnerId: q.partnerId } : {}),
          offset: q.offset ?? 0,
          limit: q.limit ?? 50,
        });
      },
    );
    scope.get(
      '/reconciliation/cases/:id',
      {
        schema: {
          tags: ['admin'],
          summary: 'One reconciliation case (404 when unknown)',
          security,
          params: Type.Object({ id: Id }),
          response: { 200: Case, ...errors, 404: AdminError },
        },
      },
      async (request) => backends.reconciliation.getCase((request.params as { id: string }).id),
    );
    scope.post(
      '/reconciliation/events/:eventId/runs',
      {
        schema: {
          tags: ['admin'],
          summary:
            "Reconcile an event now: compare the partner's transactions with the platform's, cancel orphans, flag missing orders",
          security,
          params: Type.Object({ eventId: Id }),
          response: {
            200: Report,
            ...errors,
            404: Type.Object(AdminError.properties, { description: 'Unknown event' }),
          },
        },
      },
      async (request) =>
        backends.reconciliation.reconcileEvent((request.params as { eventId: string }).eventId),
    );
    scope.get(
      '/reconciliation/events/:eventId/report',
      {
        schema: {
          tags: ['admin'],
          summary: "An event's latest reconciliation report (404 before the first run)",
          security,
          params: Type.Object({ eventId: Id }),
          response: { 200: Report, ...errors, 404: AdminError },
        },
      },
      async (request) =>
        backends.reconciliation.getEventReport((request.params as { eventId: string }).eventId),
    );
  };
}
