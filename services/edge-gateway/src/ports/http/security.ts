import type { FastifyInstance } from 'fastify';

/**
 * The credentials of the public API as OpenAPI security schemes, by name. A route's `security`
 * lists the ways it accepts (any one of them); the guards declare it for every route of their
 * scope ({@link declareSecurity}), so a guarded route is documented as guarded by construction.
 */
export const securitySchemes = {
  apiKey: {
    type: 'apiKey',
    in: 'query',
    name: 'apikey',
    description: "The app's API key (POST /admin/v1/apps)",
  },
  apiKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description: "The app's API key, as a header (partner APIs, top picks)",
  },
  apiKeyDashed: {
    type: 'apiKey',
    in: 'query',
    name: 'api-key',
    description: "The app's API key (commerce)",
  },
  sslCertUid: {
    type: 'apiKey',
    in: 'header',
    name: 'x-ssl-cert-uid',
    description: "The app's API key, as the commerce API's certificate header",
  },
  trackingId: {
    type: 'apiKey',
    in: 'query',
    name: 'tracking_id',
    description:
      "The app's public tracking id (POST /admin/v1/apps): the tracking pixel's credential, never the API key",
  },
  adminToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'ADMIN_TOKEN of the deployment',
  },
  gateToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'A gate token of the gate API, from POST /admin/v1/gates',
  },
} as const;

export type SecuritySchemeName = keyof typeof securitySchemes;

/** The scheme of an API key given in the query or a header under `name`. */
export function apiKeySchemeOf(source: {
  in: 'query' | 'header';
  name: string;
}): SecuritySchemeName {
  for (const [scheme, definition] of Object.entries(securitySchemes)) {
    if (
      definition.type === 'apiKey' &&
      definition.in === source.in &&
      definition.name === source.name.toLowerCase()
    ) {
      return scheme as SecuritySchemeName;
    }
  }
  throw new Error(`no security scheme for an API key in the ${source.in} as ${source.name}`);
}

/** `security` of the routes guarded by any one of `schemes`: alternatives, in that order. */
export const securityOf = (schemes: readonly SecuritySchemeName[]) =>
  schemes.map((scheme) => ({ [scheme]: [] as string[] }));

/**
 * Documents every route registered in `scope` from now on as guarded by `schemes` (any one of
 * them), unless the route states its own `security`. Only the document reads it.
 */
export function declareSecurity(
  scope: FastifyInstance,
  schemes: readonly SecuritySchemeName[],
): void {
  const security = securityOf(schemes);
  scope.addHook('onRoute', (route) => {
    const schema = (route.schema ?? {}) as { security?: unknown };
    if (schema.security === undefined) route.schema = { ...schema, security };
  });
}
