import {
  AvailabilityQuery,
  BookingRequest,
  EventsQuery,
  OrderActionRequest,
  OrderRequest,
  OrdersQuery,
  PartnerErrorId,
  operationScopes,
} from '@marquee/partner-api';
import { Type, type Static } from '@sinclair/typebox';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
} from 'fastify';
import type { ClientCredentials } from '../../app/credentials.js';
import type { Drills } from '../../app/drills.js';
import type { PartnerApp } from '../../app/partner-app.js';
import { isPartnerError, type PartnerError } from '../../domain/errors.js';
import { methodNotAllowed } from './method-not-allowed.js';
import { parseDateTime } from './parse.js';
import {
  availabilityQueryOf,
  bookingInputOf,
  confirmInputOf,
  listEventsQueryOf,
  orderActionInputOf,
  ordersQueryOf,
} from './v1-requests.js';
import {
  availabilityToWire,
  bookingToWire,
  eventsPageToWire,
  eventToWire,
  healthToWire,
  logoToWire,
  manifestToWire,
  orderToWire,
  ordersPageToWire,
  taxPlanToWire,
} from './wire.js';

export interface V1Dependencies {
  app: PartnerApp;
  credentials: ClientCredentials;
  drills: Drills;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The 3P API operation a route serves, `<METHOD> <path>` as `operationScopes` names it. */
    operation?: string;
  }
}

/** Registers one route of the 3P API under the operation whose scopes guard it. */
type Route = (
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  operation: string,
  schema: FastifySchema,
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
) => void;

const scopesByOperation = new Map(
  operationScopes.map((entry) => [`${entry.method} ${entry.path}`, entry.scopes]),
);

const Param = Type.String({ minLength: 1, maxLength: 128 });
const params = <K extends string>(...names: K[]) =>
  Type.Object(Object.fromEntries(names.map((name) => [name, Param])) as Record<K, typeof Param>);
const EventQuery = Type.Object(
  { last_modification: Type.String({ maxLength: 40 }) },
  { additionalProperties: true },
);

const errorBody = (id: number, message: string) => ({ id, message });

/** The HTTP status of a refused 3P call: 400 when malformed or impossible, 410 when refused. */
export const refusalStatus = (error: PartnerError): 400 | 410 =>
  error.kind === 'invalid_argument' ? 400 : 410;

/** The 3P API, mounted under `/v1` (bearer tokens from `/oauth/token`). */
export async function v1Routes(scope: FastifyInstance, deps: V1Dependencies): Promise<void> {
  const { app, credentials, drills } = deps;

  scope.setErrorHandler(v1ErrorHandler);
  scope.setNotFoundHandler((request, reply) =>
    reply
      .status(404)
      .send(
        errorBody(
          PartnerErrorId.NOT_PROCESSED,
          `no such operation: ${request.method} ${request.url.split('?')[0]}`,
        ),
      ),
  );
  // Credentials before anything else, so an unauthenticated caller learns nothing about the rest.
  scope.addHook('onRequest', async (request, reply) => authorize(credentials, request, reply));
  // Drills: the operation is carried out, then its answer waits.
  scope.addHook('onSend', async (request, _reply, payload) => {
    const delay = drills.delayFor(request.routeOptions.config.operation);
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    return payload;
  });

  const served = new Map<string, string[]>();
  const route: Route = (method, url, operation, schema, handler) => {
    served.set(url, [...(served.get(url) ?? []), method]);
    scope.route({ method, url, schema, config: { operation }, handler });
  };
  catalogRoutes(route, app);
  bookingRoutes(route, app);
  orderRoutes(route, app);

  methodNotAllowed(scope, served, (reply) =>
    reply.status(405).send(errorBody(PartnerErrorId.NOT_PROCESSED, 'method not allowed')),
  );
}

/** Refusals as their 3P error bodies; schema failures and other 4xx as syntax errors. */
function v1ErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (isPartnerError(error)) {
    const status = refusalStatus(error);
    request.log.info({ id: error.id, status }, '3P request refused');
    return reply.status(status).send(errorBody(error.id, error.message));
  }
  if (error.validation !== undefined) {
    const message = `${error.validationContext ?? 'request'}: ${error.validation
      .slice(0, 5)
      .map((v) => `${v.instancePath || '/'} ${v.message ?? 'is invalid'}`)
      .join('; ')}`;
    return reply.status(400).send(errorBody(PartnerErrorId.SYNTAX_ERROR, message));
  }
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 500)
    return reply
      .status(status === 413 ? 413 : 400)
      .send(errorBody(PartnerErrorId.SYNTAX_ERROR, error.message));
  request.log.error({ err: error }, '3P request failed');
  return reply.status(500).send(errorBody(PartnerErrorId.NOT_PROCESSED, 'internal error'));
}

/** The bearer token must be valid (401) and carry a scope of the route's operation (403). */
async function authorize(
  credentials: ClientCredentials,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^Bearer ([\x21-\x7e]+)$/i.exec(header);
  const auth = credentials.authenticate(match?.[1]);
  if (!auth.ok) {
    const challenge =
      auth.reason === 'missing'
        ? 'Bearer realm="partner-reference"'
        : `Bearer realm="partner-reference", error="invalid_token", error_description="the token is ${auth.reason === 'expired' ? 'expired' : 'unknown'}"`;
    return reply
      .status(401)
      .header('www-authenticate', challenge)
      .send(
        errorBody(
          PartnerErrorId.NOT_PROCESSED,
          auth.reason === 'missing' ? 'a bearer token is required' : `the token is ${auth.reason}`,
        ),
      );
  }
  const operation = request.routeOptions.config.operation;
  const needed = operation === undefined ? undefined : scopesByOperation.get(operation);
  if (needed !== undefined && !needed.some((s) => auth.scopes.has(s))) {
    return reply
      .status(403)
      .header(
        'www-authenticate',
        `Bearer realm="partner-reference", error="insufficient_scope", scope="${needed.join(' ')}"`,
      )
      .send(
        errorBody(
          PartnerErrorId.NOT_PROCESSED,
          `this operation needs the scope ${needed.join(' or ')}`,
        ),
      );
  }
  return undefined;
}

/** The health check and the catalogue reads: events, availability, manifests, logos, tax plans. */
function catalogRoutes(route: Route, app: PartnerApp): void {
  route('GET', '/healthcheck', 'GET /healthcheck', {}, async () => healthToWire(app.healthcheck()));

  route('GET', '/events', 'GET /events', { querystring: EventsQuery }, async (request) =>
    eventsPageToWire(
      await app.listEvents(listEventsQueryOf(request.query as Static<typeof EventsQuery>)),
    ),
  );

  route(
    'GET',
    '/events/:event_id',
    'GET /events/{event_id}',
    { params: params('event_id'), querystring: EventQuery },
    async (request) => {
      const { event_id } = request.params as { event_id: string };
      const query = request.query as { last_modification: string };
      parseDateTime(query.last_modification, 'last_modification');
      return eventToWire(await app.getEvent(event_id));
    },
  );

  route(
    'GET',
    '/events/:event_id/availability',
    'GET /events/{event_id}/availability',
    { params: params('event_id'), querystring: AvailabilityQuery },
    async (request) =>
      availabilityToWire(
        await app.availability(
          availabilityQueryOf(
            (request.params as { event_id: string }).event_id,
            request.query as Static<typeof AvailabilityQuery>,
          ),
        ),
      ),
  );

  route(
    'GET',
    '/manifests/:manifest_id',
    'GET /manifests/{manifest_id}',
    { params: params('manifest_id') },
    async (request) =>
      manifestToWire(
        await app.getManifest((request.params as { manifest_id: string }).manifest_id),
      ),
  );

  route(
    'GET',
    '/logos/:logo_id',
    'GET /logos/{logo_id}',
    { params: params('logo_id') },
    async (request) =>
      logoToWire(await app.getLogo((request.params as { logo_id: string }).logo_id)),
  );

  route(
    'GET',
    '/tax-plans/:tax_plan_id',
    'GET /tax-plans/{tax_plan_id}',
    { params: params('tax_plan_id') },
    async (request) =>
      taxPlanToWire(await app.getTaxPlan((request.params as { tax_plan_id: string }).tax_plan_id)),
  );
}

/** Holding seats and releasing a hold. */
function bookingRoutes(route: Route, app: PartnerApp): void {
  route('POST', '/bookings', 'POST /bookings', { body: BookingRequest }, async (request, reply) => {
    const input = bookingInputOf((request.body as BookingRequest).request);
    const { booking, created } = await app.book(input);
    return reply.status(created ? 201 : 200).send({ booking: bookingToWire(booking) });
  });

  route(
    'DELETE',
    '/bookings/:inventory_token',
    'DELETE /bookings/{inventory_token}',
    { params: params('inventory_token') },
    async (request) => ({
      booking: bookingToWire(
        await app.release((request.params as { inventory_token: string }).inventory_token),
      ),
    }),
  );
}

/** Confirming, listing, reading and acting on orders. */
function orderRoutes(route: Route, app: PartnerApp): void {
  route('POST', '/orders', 'POST /orders', { body: OrderRequest }, async (request, reply) => {
    const input = confirmInputOf((request.body as OrderRequest).request);
    const { order, created } = await app.confirm(input);
    return reply.status(created ? 201 : 200).send({ order: orderToWire(order) });
  });

  route('GET', '/orders', 'GET /orders', { querystring: OrdersQuery }, async (request) =>
    ordersPageToWire(
      await app.listOrders(ordersQueryOf(request.query as Static<typeof OrdersQuery>)),
    ),
  );

  route(
    'GET',
    '/orders/:inventory_order',
    'GET /orders/{inventory_order}',
    { params: params('inventory_order') },
    async (request) => ({
      order: orderToWire(
        await app.getOrder((request.params as { inventory_order: string }).inventory_order),
      ),
    }),
  );

  route(
    'POST',
    '/orders/:inventory_order',
    'POST /orders/{inventory_order}',
    { params: params('inventory_order'), body: OrderActionRequest },
    async (request) => {
      const { action, order } = await app.orderAction(
        orderActionInputOf(
          (request.params as { inventory_order: string }).inventory_order,
          (request.body as OrderActionRequest).request,
        ),
      );
      return { action, order: orderToWire(order) };
    },
  );
}
