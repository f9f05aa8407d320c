import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { SecureEntryBackend } from '../../../app/secure-entry.js';

const AdminError = Type.Object({
  error: Type.Object({ code: Type.String(), message: Type.String() }),
});

const Gate = Type.Object({
  id: Type.String(),
  name: Type.String(),
  eventId: Type.String(),
  createdAt: Type.Optional(Type.String({ format: 'date-time' })),
  revokedAt: Type.Optional(Type.String({ format: 'date-time' })),
});

const NewGate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    eventId: Type.String({
      pattern: '^[A-Za-z0-9_.:-]{1,64}$',
      description: 'The event it admits to',
    }),
  },
  { additionalProperties: false },
);

const GateParams = Type.Object({ id: Type.String({ pattern: '^[a-z0-9]{4,40}$' }) });
const GatesQuery = Type.Object(
  { eventId: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_.:-]{1,64}$' })) },
  { additionalProperties: false },
);

/**
 * Gates (scanner devices) of secure entry: register one for an event (its bearer token for the
 * gate API `/gate/v1` is shown once and stored hashed by secure-entry), list them, revoke one.
 */
export function gatesAdminRoutes(backends: { secureEntry: SecureEntryBackend }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const errors = { 400: AdminError, 401: AdminError, 503: AdminError, 504: AdminError };
    const security = [{ adminToken: [] }];
    scope.post(
      '/gates',
      {
        schema: {
          tags: ['admin'],
          summary: 'Register a gate for an event; answers its gate API token once',
          security,
          body: NewGate,
          response: {
            201: Type.Object({
              gate: Gate,
              token: Type.String({ description: 'Bearer token of /gate/v1; shown once' }),
            }),
            ...errors,
          },
        },
      },
      async (request, reply) => {
        const created = await backends.secureEntry.createGate(
          request.body as Static<typeof NewGate>,
        );
        return reply.code(201).send(created);
      },
    );
    scope.get(
      '/gates',
      {
        schema: {
          tags: ['admin'],
          summary: 'Registered gates, newest first (never their tokens)',
          security,
          querystring: GatesQuery,
          response: { 200: Type.Object({ gates: Type.Array(Gate) }), ...errors },
        },
      },
      async (request) => ({
        gates: await backends.secureEntry.listGates(
          (request.query as Static<typeof GatesQuery>).eventId,
        ),
      }),
    );
    scope.delete(
      '/gates/:id',
      {
        schema: {
          tags: ['admin'],
          summary: 'Revoke a gate: its token stops working (404 when unknown)',
          security,
          params: GateParams,
          response: { 200: Type.Object({ gate: Gate }), ...errors, 404: AdminError },
        },
      },
      async (request) => ({
        gate: await backends.secureEntry.revokeGate((request.params as { id: string }).id),
      }),
    );
  };
}
