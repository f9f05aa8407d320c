import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppOAuth, AppQuota, Backends, NewApp } from '../../../app/backends.js';
import { AdminError } from './admin-schemas.js';

const HeldTicketsPerEvent = Type.Integer({
  minimum: 0,
  maximum: 100_000,
  description:
    'Tickets the app holds at once for one event, in pending, held and paid carts (0 = no limit; default 20)',
});

const QuotaAnswer = Type.Object({
  appId: Type.String(),
  quota: Type.Object({
    perDay: Type.Integer(),
    perSecond: Type.Integer(),
    heldTicketsPerEvent: Type.Integer(),
  }),
});

/** The limits of an app's quota, each optional. */
const quotaFields = {
  perDay: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000 })),
  perSecond: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  heldTicketsPerEvent: Type.Optional(HeldTicketsPerEvent),
};

const QuotaChange = Type.Object(quotaFields, { additionalProperties: false, minProperties: 1 });

const NewAppBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    redirectUris: Type.Array(Type.String({ format: 'uri', maxLength: 2048 }), {
      minItems: 1,
      maxItems: 20,
    }),
    /** Optional per-app quota (default: 5,000 a day at 5 a second, 20 tickets held per event). */
    quota: Type.Optional(Type.Object(quotaFields, { additionalProperties: false })),
    /** OAuth settings; each off unless given. */
    oauth: Type.Optional(
      Type.Object(
        {
          requirePkce: Type.Optional(Type.Boolean()),
          rotateRefreshTokens: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const AppParams = Type.Object(
  { appId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Platform app id' }) },
  { additionalProperties: false },
);

const OAuthSettings = Type.Object({
  requirePkce: Type.Boolean({
    description: '/oauth/authorize refuses a request without an S256 code_challenge',
  }),
  rotateRefreshTokens: Type.Boolean({
    description:
      'Each refresh answers a new refresh token; a retired one presented again revokes every token of its authorization',
  }),
});

const OAuthChange = Type.Object(
  {
    requirePkce: Type.Optional(Type.Boolean({ description: 'Absent = unchanged' })),
    rotateRefreshTokens: Type.Optional(Type.Boolean({ description: 'Absent = unchanged' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

const NewFanBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    password: Type.String({ minLength: 8, maxLength: 256 }),
  },
  { additionalProperties: false },
);

/** A platform fan id (a UUID today; kept loose). */
const FanParams = Type.Object(
  { fanId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Platform fan id' }) },
  { additionalProperties: false },
);

/** A platform fan id and an app's OAuth client id (base64url of 16 random bytes; kept loose). */
const GrantParams = Type.Object(
  {
    fanId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
    clientId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,128}$' }),
  },
  { additionalProperties: false },
);

/** Operators and tests provision apps and fans through the edge (edge-app checks the token). */
export function adminRoutes(backends: Backends) {
  return async (scope: FastifyInstance): Promise<void> => {
    newAppRoute(scope, backends);
    appOAuthRoute(scope, backends);
    appQuotaRoute(scope, backends);
    newFanRoute(scope, backends);
    deleteFanRoute(scope, backends);
    revokeGrantRoute(scope, backends);
  };
}

/** POST /apps: registers a developer app. */
function newAppRoute(scope: FastifyInstance, backends: Backends): void {
  scope.post(
    '/apps',
    {
      schema: {
        tags: ['admin'],
        summary: 'Register a developer app: returns its API key and OAuth client credentials',
        security: [{ adminToken: [] }],
        body: NewAppBody,
        response: {
          201: Type.Object({
            appId: Type.Optional(
              Type.String({ description: 'Platform app id (approvals name the app by it)' }),
            ),
            apiKey: Type.String(),
            clientId: Type.String(),
            clientSecret: Type.String(),
            trackingId: Type.Optional(
              Type.String({
                description:
                  'Public id for the tracking pixel (`tracking_id`); pages carry it instead of the API key',
              }),
            ),
          }),
          400: AdminError,
          401: AdminError,
        },
      },
    },
    async (request, reply) => {
      const body = request.body as NewApp;
      const created = await backends.developerAccess.createApp(body);
      return reply.code(201).send(created);
    },
  );
}

/** PATCH /apps/:appId/oauth: changes an app's OAuth settings. */
function appOAuthRoute(scope: FastifyInstance, backends: Backends): void {
  scope.patch(
    '/apps/:appId/oauth',
    {
      schema: {
        tags: ['admin'],
        summary:
          "Change an app's OAuth settings (require PKCE, rotate refresh tokens); effective at once",
        security: [{ adminToken: [] }],
        params: AppParams,
        body: OAuthChange,
        response: {
          200: Type.Object({ appId: Type.String(), oauth: OAuthSettings }),
          400: AdminError,
          401: AdminError,
          404: AdminError,
        },
      },
    },
    async (request) => {
      const { appId } = request.params as { appId: string };
      const change = request.body as Partial<AppOAuth>;
      return { appId, oauth: await backends.appOAuth.setAppOAuth(appId, change) };
    },
  );
}

/** PATCH /apps/:appId/quota: changes an app's quotas. */
function appQuotaRoute(scope: FastifyInstance, backends: Backends): void {
  scope.patch(
    '/apps/:appId/quota',
    {
      schema: {
        tags: ['admin'],
        summary:
          "Change an app's quotas (calls per day and second, tickets held per event); effective within 30 s on every edge",
        security: [{ adminToken: [] }],
        params: AppParams,
        body: QuotaChange,
        response: {
          200: QuotaAnswer,
          400: AdminError,
          401: AdminError,
          404: AdminError,
        },
      },
    },
    async (request) => {
      const { appId } = request.params as { appId: string };
      const change = request.body as Partial<AppQuota>;
      return { appId, quota: await backends.appQuota.setAppQuota(appId, change) };
    },
  );
}

/** POST /fans: creates a fan account. */
function newFanRoute(scope: FastifyInstance, backends: Backends): void {
  scope.post(
    '/fans',
    {
      schema: {
        tags: ['admin'],
        summary: 'Create a fan account that can sign in at /oauth/authorize',
        security: [{ adminToken: [] }],
        body: NewFanBody,
        response: {
          201: Type.Object({ id: Type.String() }),
          400: AdminError,
          401: AdminError,
          409: AdminError,
        },
      },
    },
    async (request, reply) => {
      const body = request.body as { email: string; password: string };
      const created = await backends.developerAccess.createFan(body);
      return reply.code(201).send(created);
    },
  );
}

/** DELETE /fans/:fanId: erases a fan. */
function deleteFanRoute(scope: FastifyInstance, backends: Backends): void {
  scope.delete(
    '/fans/:fanId',
    {
      schema: {
        tags: ['admin'],
        summary:
          "Delete a fan (erasure): the account, grants and tokens go; the contact on the fan's orders is blanked, the orders kept",
        description:
          "auth-gateway deletes the fan, their grants and tokens at once and records fan-deleted; cart and secure-entry then blank the e-mail, partner account id and fan id of the fan's orders (within seconds). A second deletion of the same fan is 404.",
        security: [{ adminToken: [] }],
        params: FanParams,
        response: {
          204: Type.Null(),
          400: AdminError,
          401: AdminError,
          404: AdminError,
        },
      },
    },
    async (request, reply) => {
      const { fanId } = request.params as { fanId: string };
      await backends.developerAccess.deleteFan(fanId);
      return reply.code(204).send();
    },
  );
}

/** DELETE /fans/:fanId/grants/:clientId: ends a fan's grant for an app. */
function revokeGrantRoute(scope: FastifyInstance, backends: Backends): void {
  scope.delete(
    '/fans/:fanId/grants/:clientId',
    {
      schema: {
        tags: ['admin'],
        summary:
          "Withdraw an app's access for a fan: the grant ends and every token issued under it is revoked",
        security: [{ adminToken: [] }],
        params: GrantParams,
        response: {
          204: Type.Null(),
          400: AdminError,
          401: AdminError,
          404: AdminError,
        },
      },
    },
    async (request, reply) => {
      const { fanId, clientId } = request.params as { fanId: string; clientId: string };
      await backends.developerAccess.revokeGrant(fanId, clientId);
      return reply.code(204).send();
    },
  );
}
