import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { NewPartner, PartnerAdmin } from '../../../app/partners.js';

const AdminError = Type.Object({
  error: Type.Object({ code: Type.String(), message: Type.String() }),
});

/** A partner's venue id, as 3p-connector accepts it. */
const VenueId = Type.String({ pattern: '^[A-Za-z0-9_.:-]{1,64}$' });
const Venues = Type.Array(VenueId, { maxItems: 500, uniqueItems: true });

/**
 * An absolute http(s) URL without credentials, query or fragment (what 3p-connector accepts), of a
 * host; a path may follow.
 */
const PartnerUrl = (description: string) =>
  Type.String({
    format: 'uri',
    maxLength: 2048,
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#@\\s]+(?:/[^?#\\s]*)?$',
    description,
  });
/** Text that is not only blanks (3p-connector reads it trimmed). */
const NOT_BLANK = '\\S';

const NewPartnerBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: NOT_BLANK }),
    baseUrl: PartnerUrl('API base URL, /v1 included'),
    authUrl: PartnerUrl('OAuth token endpoint'),
    clientId: Type.String({ minLength: 1, maxLength: 256, pattern: NOT_BLANK }),
    clientSecret: Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'Stored encrypted by the connector; never returned',
    }),
    venues: Type.Array(VenueId, {
      minItems: 1,
      maxItems: 500,
      uniqueItems: true,
      description: "The partner's venue ids to import",
    }),
  },
  { additionalProperties: false },
);

const ImportBody = Type.Object(
  { venues: Type.Optional(Venues) },
  { additionalProperties: false, description: 'No venues (or no body): every registered venue' },
);

const Partner = Type.Object({
  id: Type.String(),
  name: Type.String(),
  baseUrl: Type.String(),
  authUrl: Type.String(),
  clientId: Type.String(),
  venues: Type.Array(
    Type.Object({
      venueId: Type.String(),
      watermark: Type.Optional(Type.String({ format: 'date-time' })),
      lastImportAt: Type.Optional(Type.String({ format: 'date-time' })),
      lastImportEvents: Type.Integer(),
      lastError: Type.Optional(Type.String()),
    }),
  ),
  health: Type.Union(
    ['UNCHECKED', 'HEALTHY', 'UNAVAILABLE', 'SYNC_REQUIRED', 'UNREACHABLE', 'UNAUTHORIZED'].map(
      (h) => Type.Literal(h),
    ),
  ),
  createdAt: Type.Optional(Type.String({ format: 'date-time' })),
});

const QueuedCall = Type.Object({
  id: Type.String(),
  partnerId: Type.String(),
  operation: Type.String({ description: 'e.g. CANCEL_ORDER' }),
  inventoryOrderId: Type.String(),
  orderId: Type.String(),
  attempts: Type.Integer(),
  nextAttemptAt: Type.Optional(Type.String({ format: 'date-time' })),
  lastError: Type.Optional(Type.String()),
  queuedAt: Type.Optional(Type.String({ format: 'date-time' })),
});

const PartnerParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_.:-]{1,128}$' }) });
const QueueQuery = Type.Object(
  { partnerId: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_.:-]{1,128}$' })) },
  { additionalProperties: false },
);

/** What every partner route may answer besides its own. */
const partnerErrors = { 400: AdminError, 401: AdminError, 503: AdminError, 504: AdminError };
const security = [{ adminToken: [] }];

/**
 * Partner systems (3p-connector): register one (its venues are imported at once), read them
 * (never their secrets), import again now, and see the partner calls waiting to be retried.
 * Backend refusals keep their meaning: 400, 404, 409, 503 (with Retry-After), 504.
 */
export function partnersAdminRoutes(backends: { partners: PartnerAdmin }) {
  return async (scope: FastifyInstance): Promise<void> => {
    newPartnerRoute(scope, backends);
    partnersRoute(scope, backends);
    queuedCallsRoute(scope, backends);
    partnerRoute(scope, backends);
    importRoute(scope, backends);
  };
}

/** POST /partners: registers a partner and starts an import of its venues. */
function newPartnerRoute(scope: FastifyInstance, backends: { partners: PartnerAdmin }): void {
  scope.post(
    '/partners',
    {
      schema: {
        tags: ['admin'],
        summary: 'Register a partner system; starts an import of its venues',
        security,
        body: NewPartnerBody,
        response: { 201: Type.Object({ id: Type.String() }), ...partnerErrors, 409: AdminError },
      },
    },
    async (request, reply) => {
      const created = await backends.partners.registerPartner(request.body as NewPartner);
      return reply.code(201).send({ id: created.id });
    },
  );
}

/** GET /partners: the registered partners. */
function partnersRoute(scope: FastifyInstance, backends: { partners: PartnerAdmin }): void {
  scope.get(
    '/partners',
    {
      schema: {
        tags: ['admin'],
        summary: 'Registered partners with their import and health state (no secrets)',
        security,
        response: { 200: Type.Object({ partners: Type.Array(Partner) }), ...partnerErrors },
      },
    },
    async () => ({ partners: await backends.partners.listPartners() }),
  );
}

/** GET /partners/queued-calls: partner calls waiting to be retried. */
function queuedCallsRoute(scope: FastifyInstance, backends: { partners: PartnerAdmin }): void {
  scope.get(
    '/partners/queued-calls',
    {
      schema: {
        tags: ['admin'],
        summary:
          'Partner calls the connector retries until accepted (queued cancels), oldest first',
        security,
        querystring: QueueQuery,
        response: { 200: Type.Object({ calls: Type.Array(QueuedCall) }), ...partnerErrors },
      },
    },
    async (request) => ({
      calls: await backends.partners.listQueuedCalls(
        (request.query as { partnerId?: string }).partnerId,
      ),
    }),
  );
}

/** GET /partners/:id: one partner. */
function partnerRoute(scope: FastifyInstance, backends: { partners: PartnerAdmin }): void {
  scope.get(
    '/partners/:id',
    {
      schema: {
        tags: ['admin'],
        summary: 'One partner (404 when unknown)',
        security,
        params: PartnerParams,
        response: { 200: Partner, ...partnerErrors, 404: AdminError },
      },
    },
    async (request) => backends.partners.getPartner((request.params as { id: string }).id),
  );
}

/** POST /partners/:id/imports: imports the partner's venues now. */
function importRoute(scope: FastifyInstance, backends: { partners: PartnerAdmin }): void {
  scope.post(
    '/partners/:id/imports',
    {
      schema: {
        tags: ['admin'],
        summary: "Import the partner's venues now instead of waiting for the schedule",
        security,
        params: PartnerParams,
        body: Type.Optional(ImportBody),
        response: {
          202: Type.Object({ venues: Type.Array(Type.String()) }),
          ...partnerErrors,
          404: AdminError,
        },
      },
    },
    async (request, reply) => {
      const body = (request.body ?? {}) as { venues?: string[] };
      const started = await backends.partners.startImport(
        (request.params as { id: string }).id,
        body.venues ?? [],
      );
      return reply.code(202).send({ venues: started.venues });
    },
  );
}
