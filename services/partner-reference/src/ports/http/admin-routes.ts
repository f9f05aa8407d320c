import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  CreateEventBody,
  CreateLogoBody,
  CreateTaxPlanBody,
  CreateVenueBody,
  DelayDrillBody,
  HealthDrillBody,
  PatchEventBody,
} from './admin-schemas.js';
import { AdminError, type BackOffice } from '../../app/back-office.js';
import { constantTimeEqual } from '../../app/credentials.js';
import type { Drills } from '../../app/drills.js';
import type { PartnerApp } from '../../app/partner-app.js';
import { Type } from '@sinclair/typebox';
import {
  adminEventsToWire,
  adminEventToWire,
  eventPatchFrom,
  healthFrom,
  newEventFrom,
  newVenueFrom,
  venuesToWire,
} from './admin-wire.js';
import { methodNotAllowed } from './method-not-allowed.js';
import { healthToWire } from './wire.js';

export interface AdminDependencies {
  backOffice: BackOffice;
  app: PartnerApp;
  drills: Drills;
  adminToken: string;
}

const adminError = (reply: FastifyReply, status: number, code: string, message: string) =>
  reply.status(status).send({ error: { code, message } });

const EventParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });
const VenueQuery = Type.Object(
  { venue: Type.Optional(Type.String({ maxLength: 128 })) },
  { additionalProperties: false },
);

/** Notes each method a url serves, for the 405 answers of `methodNotAllowed`. */
type Serve = (method: string, url: string) => void;

/** The back office under `/admin/v1`, behind `Authorization: Bearer <PARTNER_ADMIN_TOKEN>`. */
export async function adminRoutes(scope: FastifyInstance, deps: AdminDependencies): Promise<void> {
  scope.setErrorHandler(adminErrorHandler);
  scope.setNotFoundHandler((_request, reply) =>
    adminError(reply, 404, 'not_found', 'no such route'),
  );

  scope.addHook('onRequest', async (request, reply) => {
    const match = /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '');
    if (match === null || !constantTimeEqual(match[1]!, deps.adminToken))
      return adminError(
        reply.header('www-authenticate', 'Bearer realm="partner-reference-admin"'),
        401,
        'unauthenticated',
        'a valid admin bearer token is required',
      );
  });

  const served = new Map<string, string[]>();
  const serve: Serve = (method, url) => served.set(url, [...(served.get(url) ?? []), method]);
  catalogAdminRoutes(scope, serve, deps.backOffice);
  drillRoutes(scope, serve, deps);

  methodNotAllowed(scope, served, (reply) =>
    adminError(reply, 405, 'method_not_allowed', 'method not allowed'),
  );
}

/** Back-office refusals as `{ error: { code, message } }`; schema failures as invalid_argument. */
function adminErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof AdminError)
    return adminError(reply, error.code === 'not_found' ? 404 : 400, error.code, error.message);
  if (error.validation !== undefined)
    return adminError(
      reply,
      400,
      'invalid_argument',
      `${error.validationContext ?? 'request'}: ${error.validation
        .slice(0, 5)
        .map((v) => `${v.instancePath || '/'} ${v.message ?? 'is invalid'}`)
        .join('; ')}`,
    );
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 500)
    return adminError(reply, status === 413 ? 413 : 400, 'invalid_argument', error.message);
  request.log.error({ err: error }, 'back-office request failed');
  return adminError(reply, 500, 'internal', 'internal error');
}

/** Venues, events, logos and tax plans of the catalogue. */
function catalogAdminRoutes(scope: FastifyInstance, serve: Serve, backOffice: BackOffice): void {
  serve('POST', '/venues');
  scope.post('/venues', { schema: { body: CreateVenueBody } }, async (request, reply) => {
    const venue = await backOffice.createVenue(newVenueFrom(request.body as CreateVenueBody));
    return reply.status(201).send({ venue_id: venue.venueId, manifest_ids: venue.manifestIds });
  });
  serve('GET', '/venues');
  scope.get('/venues', async () => venuesToWire(await backOffice.listVenues()));

  serve('POST', '/events');
  scope.post('/events', { schema: { body: CreateEventBody } }, async (request, reply) =>
    reply.status(201).send({
      event_id: await backOffice.createEvent(newEventFrom(request.body as CreateEventBody)),
    }),
  );
  serve('GET', '/events');
  scope.get('/events', { schema: { querystring: VenueQuery } }, async (request) =>
    adminEventsToWire(await backOffice.listEvents((request.query as { venue?: string }).venue)),
  );
  serve('PATCH', '/events/:id');
  scope.patch(
    '/events/:id',
    { schema: { params: EventParams, body: PatchEventBody } },
    async (request) =>
      adminEventToWire(
        await backOffice.patchEvent(
          (request.params as { id: string }).id,
          eventPatchFrom(request.body as PatchEventBody),
        ),
      ),
  );

  serve('POST', '/logos');
  scope.post('/logos', { schema: { body: CreateLogoBody } }, async (request, reply) => {
    const body = request.body as CreateLogoBody;
    const logoId = await backOffice.createLogo({
      ...(body.logo_id !== undefined ? { logoId: body.logo_id } : {}),
      format: body.format,
      data: body.data,
    });
    return reply.status(201).send({ logo_id: logoId });
  });
  serve('POST', '/tax-plans');
  scope.post('/tax-plans', { schema: { body: CreateTaxPlanBody } }, async (request, reply) => {
    const body = request.body as CreateTaxPlanBody;
    const taxPlanId = await backOffice.createTaxPlan({
      ...(body.tax_plan_id !== undefined ? { taxPlanId: body.tax_plan_id } : {}),
      name: body.name,
      rates: body.rates.map((r) => ({ name: r.name, rate: r.rate })),
    });
    return reply.status(201).send({ tax_plan_id: taxPlanId });
  });
}

/** The drills: the health check's answer and per-operation delays. */
function drillRoutes(
  scope: FastifyInstance,
  serve: Serve,
  { app, drills }: { app: PartnerApp; drills: Drills },
): void {
  serve('PUT', '/healthcheck');
  scope.put('/healthcheck', { schema: { body: HealthDrillBody } }, async (request) => {
    app.setHealth(healthFrom(request.body as HealthDrillBody));
    return healthToWire(app.healthcheck());
  });
  serve('PUT', '/drills');
  scope.put('/drills', { schema: { body: DelayDrillBody } }, async (request) => {
    const body = request.body as DelayDrillBody;
    drills.set({
      ...(body.delay_ms !== undefined ? { delayMs: body.delay_ms } : {}),
      ...(body.operations !== undefined ? { operations: body.operations } : {}),
    });
    const current = drills.current();
    return { delay_ms: current.delayMs, operations: current.operations };
  });
}
