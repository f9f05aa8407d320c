import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { DealChange, DealsBackend, NewDeal } from '../../../app/deals.js';

const AdminError = Type.Object({
  error: Type.Object({ code: Type.String(), message: Type.String() }),
});

const Exclusivity = Type.Union([Type.Literal('EXCLUSIVE'), Type.Literal('NONEXCLUSIVE')]);

const DealFields = {
  dealName: Type.String({ minLength: 1, maxLength: 200 }),
  dealDescription: Type.String({ minLength: 1, maxLength: 2000 }),
  dealOfferCode: Type.Optional(Type.String({ maxLength: 100 })),
  exclusivity: Exclusivity,
};

const NewDealBody = Type.Object(
  { eventId: Type.String({ minLength: 1, maxLength: 64 }), ...DealFields },
  { additionalProperties: false },
);

const DealChangeBody = Type.Object(
  {
    ...DealFields,
    expectedVersion: Type.Optional(
      Type.Integer({
        minimum: 1,
        // What a version can be: an int64 read as a JSON number, exact up to 2^53 - 1.
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'Optimistic concurrency: 409 when the deal moved on',
      }),
    ),
  },
  { additionalProperties: false },
);

const Deal = Type.Object({
  id: Type.String(),
  eventId: Type.String(),
  dealName: Type.String(),
  dealDescription: Type.String(),
  dealOfferCode: Type.Optional(Type.String()),
  exclusivity: Exclusivity,
  state: Type.Union([Type.Literal('ACTIVE'), Type.Literal('ENDED')]),
  version: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

const DealParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) });

/**
 * Deals are provisioned through the admin API (`POST /admin/v1/deals` → 201 `{id}`);
 * read, change (PUT, whole editable state) and end (DELETE → 204; the deal is kept as ENDED).
 */
export function dealsAdminRoutes(backends: { deals: DealsBackend }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const errors = { 400: AdminError, 401: AdminError, 404: AdminError };
    scope.post(
      '/deals',
      {
        schema: {
          tags: ['admin'],
          summary: 'Create a deal on an event: it appears in deals search at once',
          security: [{ adminToken: [] }],
          body: NewDealBody,
          response: { 201: Type.Object({ id: Type.String() }), ...errors },
        },
      },
      async (request, reply) => {
        const created = await backends.deals.createDeal(request.body as NewDeal);
        return reply.code(201).send({ id: created.id });
      },
    );
    scope.get(
      '/deals/:id',
      {
        schema: {
          tags: ['admin'],
          summary: 'Read a deal, active or ended',
          security: [{ adminToken: [] }],
          params: DealParams,
          response: { 200: Deal, ...errors },
        },
      },
      async (request) => backends.deals.getDeal((request.params as { id: string }).id),
    );
    scope.put(
      '/deals/:id',
      {
        schema: {
          tags: ['admin'],
          summary: "Change a deal's texts and exclusivity (409 when ended or at another version)",
          security: [{ adminToken: [] }],
          params: DealParams,
          body: DealChangeBody,
          response: { 200: Deal, ...errors, 409: AdminError },
        },
      },
      async (request) =>
        backends.deals.updateDeal(
          (request.params as { id: string }).id,
          request.body as DealChange,
        ),
    );
    scope.delete(
      '/deals/:id',
      {
        schema: {
          tags: ['admin'],
          summary: 'End a deal: it leaves deals search; ending an ended deal is a no-op',
          security: [{ adminToken: [] }],
          params: DealParams,
          response: { 204: Type.Null(), ...errors },
        },
      },
      async (request, reply) => {
        await backends.deals.endDeal((request.params as { id: string }).id);
        return reply.code(204).send();
      },
    );
  };
}
