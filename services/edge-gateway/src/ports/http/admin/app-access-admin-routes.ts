import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppAccess, AppAccessAdmin } from '../../../app/commerce.js';

const AdminError = Type.Object({
  error: Type.Object({ code: Type.String(), message: Type.String() }),
});

const AppParams = Type.Object(
  { appId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Platform app id' }) },
  { additionalProperties: false },
);

const Access = Type.Object({
  commerceShopping: Type.Boolean({
    description: 'Commerce shopping services: cart, delivery, payment, purchase',
  }),
  partnerDistribution: Type.Boolean({
    description:
      'Distribution through the partner cart (resale listings included), the secure-entry order read and secure render',
  }),
});

const AccessAnswer = Type.Object({ appId: Type.String(), access: Access });

const AppAnswer = Type.Object(
  {
    appId: Type.String(),
    name: Type.String(),
    clientId: Type.String({ description: 'Public OAuth client id' }),
    trackingId: Type.String({
      description:
        'Public id for the tracking pixel (`tracking_id`), which pages carry instead of the API key; empty only until auth-gateway has given one to an app older than tracking ids',
    }),
    redirectUris: Type.Array(Type.String()),
    status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('SUSPENDED')]),
    quota: Type.Object({
      perDay: Type.Integer(),
      perSecond: Type.Integer(),
      heldTicketsPerEvent: Type.Integer({ description: '0 = no limit' }),
    }),
    access: Access,
    oauth: Type.Object({ requirePkce: Type.Boolean(), rotateRefreshTokens: Type.Boolean() }),
    createdAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  {
    description:
      'An app as operators see it: no secret (the API key and client secret are kept hashed)',
  },
);

const AccessChange = Type.Object(
  {
    commerceShopping: Type.Optional(
      Type.Boolean({ description: 'Grant (true) or withdraw (false); absent = unchanged' }),
    ),
    partnerDistribution: Type.Optional(
      Type.Boolean({ description: 'Grant (true) or withdraw (false); absent = unchanged' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

/**
 * Approval of apps for restricted services: the commerce shopping services, and partner
 * distribution (the partner cart, the order read, secure render). auth-gateway
 * stores the flag on the app and answers it with every API-key check; the edge trusts a cached key
 * check for at most 30 s, so a grant or a withdrawal takes effect on every edge replica within 30 s.
 */
export function appAccessAdminRoutes(backends: { appAccess: AppAccessAdmin }) {
  return async (scope: FastifyInstance): Promise<void> => {
    scope.get(
      '/apps/:appId',
      {
        schema: {
          tags: ['admin'],
          summary: 'An app: name, client id, tracking id, quotas, access, OAuth settings',
          security: [{ adminToken: [] }],
          params: AppParams,
          response: { 200: AppAnswer, 400: AdminError, 401: AdminError, 404: AdminError },
        },
      },
      async (request) => {
        const { appId } = request.params as { appId: string };
        const { createdAt, ...app } = await backends.appAccess.getApp(appId);
        return { ...app, ...(createdAt ? { createdAt: createdAt.toISOString() } : {}) };
      },
    );

    scope.get(
      '/apps/:appId/access',
      {
        schema: {
          tags: ['admin'],
          summary: 'Restricted services an app is approved for',
          security: [{ adminToken: [] }],
          params: AppParams,
          response: { 200: AccessAnswer, 400: AdminError, 401: AdminError, 404: AdminError },
        },
      },
      async (request) => {
        const { appId } = request.params as { appId: string };
        return { appId, access: await backends.appAccess.getAppAccess(appId) };
      },
    );

    scope.patch(
      '/apps/:appId/access',
      {
        schema: {
          tags: ['admin'],
          summary:
            'Approve an app for restricted services, or withdraw it (effective within 30 s on every edge)',
          security: [{ adminToken: [] }],
          params: AppParams,
          body: AccessChange,
          response: {
            200: AccessAnswer,
            400: AdminError,
            401: AdminError,
            404: AdminError,
            413: AdminError,
            415: AdminError,
          },
        },
      },
      async (request) => {
        const { appId } = request.params as { appId: string };
        const change = request.body as Partial<AppAccess>;
        return { appId, access: await backends.appAccess.setAppAccess(appId, change) };
      },
    );
  };
}
