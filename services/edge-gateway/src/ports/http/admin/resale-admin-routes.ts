import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ResaleListingQuery, TopPicksBackend } from '../../../app/top-picks.js';
import { AdminError, AdminId, OptionalDateTime, pagingQuery, PageInfo } from './admin-schemas.js';

const Id = AdminId;
const DateTime = OptionalDateTime;
const Money = Type.Object(
  {
    amount: Type.Integer({
      minimum: 1,
      maximum: 1_000_000_000_000,
      description: 'Integer, minor units of the currency (2550 = 25.50 EUR)',
    }),
    currency: Type.String({ pattern: '^[A-Za-z]{3}$', description: "ISO 4217; the event's" }),
  },
  { additionalProperties: false },
);
const MoneyOut = Type.Object({ amount: Type.Integer(), currency: Type.String() });

const Listing = Type.Object({
  id: Type.String({ description: '`<event id>.<key>`: the `tickets[].id` of a resale reserve' }),
  eventId: Type.String(),
  orderId: Type.String({ description: 'The order whose tickets are listed' }),
  ticketIds: Type.Array(Type.String()),
  price: MoneyOut,
  faceValue: MoneyOut,
  areaId: Type.String(),
  section: Type.String(),
  row: Type.String(),
  seats: Type.Array(Type.String()),
  generalAdmission: Type.Boolean(),
  priceLevelId: Type.String(),
  priceTypeId: Type.String(),
  state: Type.Union(['LISTED', 'HELD', 'SOLD', 'WITHDRAWN'].map((s) => Type.Literal(s))),
  holdCartId: Type.Optional(Type.String()),
  holdExpiresAt: DateTime,
  soldOrderId: Type.Optional(Type.String({ description: "The buyer's order, once sold" })),
  sellerNotes: Type.String(),
  sellerAppId: Type.String(),
  createdAt: DateTime,
  updatedAt: DateTime,
});

const NewListing = Type.Object(
  {
    orderId: Type.String({ minLength: 1, maxLength: 200 }),
    ticketIds: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
      minItems: 1,
      maxItems: 50,
      uniqueItems: true,
      description: "The partner's ticket ids of that order, sold together",
    }),
    price: Money,
    sellerNotes: Type.Optional(Type.String({ maxLength: 1_000 })),
  },
  { additionalProperties: false },
);

const ListQuery = Type.Object(
  {
    eventId: Type.String({ pattern: '^[A-Za-z0-9]{1,64}$' }),
    activeOnly: Type.Optional(Type.Boolean({ description: 'Only listings on sale or held' })),
    ...pagingQuery,
  },
  { additionalProperties: false },
);

/** What every resale listing route may answer besides its own. */
const listingErrors = {
  400: AdminError,
  401: AdminError,
  500: AdminError,
  503: AdminError,
  504: AdminError,
};
const security = [{ adminToken: [] }];

/**
 * Resale listings (cart's TopPicksService): tickets of a confirmed order put up for resale by their
 * owner. Create (201), list an event's newest first, read one, withdraw (DELETE; 409 when held by a
 * cart or sold). Prices are integers in minor units.
 */
export function resaleAdminRoutes(backends: { topPicks: TopPicksBackend }) {
  return async (scope: FastifyInstance): Promise<void> => {
    newListingRoute(scope, backends);
    listingsRoute(scope, backends);
    listingRoute(scope, backends);
    withdrawListingRoute(scope, backends);
  };
}

/** POST /resale-listings: lists tickets of a confirmed order for resale. */
function newListingRoute(scope: FastifyInstance, backends: { topPicks: TopPicksBackend }): void {
  scope.post(
    '/resale-listings',
    {
      schema: {
        tags: ['admin'],
        summary: 'List tickets of a confirmed order for resale',
        description:
          '404 unknown order; 409 when the order is not confirmed, a ticket is not (or no longer) ' +
          "the order's, or is already listed.",
        security,
        body: NewListing,
        response: { 201: Listing, ...listingErrors, 404: AdminError, 409: AdminError },
      },
    },
    async (request, reply) => {
      const body = request.body as {
        orderId: string;
        ticketIds: string[];
        price: { amount: number; currency: string };
        sellerNotes?: string;
      };
      const listing = await backends.topPicks.createListing({
        orderId: body.orderId,
        ticketIds: body.ticketIds,
        price: body.price,
        sellerNotes: body.sellerNotes ?? '',
      });
      return reply.code(201).send(listing);
    },
  );
}

/** GET /resale-listings: an event's listings, newest first. */
function listingsRoute(scope: FastifyInstance, backends: { topPicks: TopPicksBackend }): void {
  scope.get(
    '/resale-listings',
    {
      schema: {
        tags: ['admin'],
        summary: "An event's resale listings, newest first",
        security,
        querystring: ListQuery,
        response: {
          200: Type.Object({
            listings: Type.Array(Listing),
            page: PageInfo,
          }),
          ...listingErrors,
        },
      },
    },
    async (request) => {
      const q = request.query as Partial<ResaleListingQuery> & { eventId: string };
      return backends.topPicks.listListings({
        eventId: q.eventId,
        activeOnly: q.activeOnly ?? false,
        offset: q.offset ?? 0,
        limit: q.limit ?? 50,
      });
    },
  );
}

/** GET /resale-listings/:id: one listing. */
function listingRoute(scope: FastifyInstance, backends: { topPicks: TopPicksBackend }): void {
  scope.get(
    '/resale-listings/:id',
    {
      schema: {
        tags: ['admin'],
        summary: 'One resale listing (404 when unknown)',
        security,
        params: Type.Object({ id: Id }),
        response: { 200: Listing, ...listingErrors, 404: AdminError },
      },
    },
    async (request) => backends.topPicks.getListing((request.params as { id: string }).id),
  );
}

/** DELETE /resale-listings/:id: withdraws a listing. */
function withdrawListingRoute(
  scope: FastifyInstance,
  backends: { topPicks: TopPicksBackend },
): void {
  scope.delete(
    '/resale-listings/:id',
    {
      schema: {
        tags: ['admin'],
        summary: 'Withdraw a resale listing (answers it; 409 when held by a cart or sold)',
        security,
        params: Type.Object({ id: Id }),
        response: { 200: Listing, ...listingErrors, 404: AdminError, 409: AdminError },
      },
    },
    async (request) => backends.topPicks.withdrawListing((request.params as { id: string }).id),
  );
}
