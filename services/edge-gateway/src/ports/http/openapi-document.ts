import { createHttpServer } from '@marquee/platform/http';
import { createLogger } from '@marquee/platform/logger';
import type { Backends } from '../../app/backends.js';
import { registerEdgeRoutes } from './edge-app.js';
import { OPENAPI_DOCUMENT_VERSION } from './openapi.js';

/**
 * Back ends for building the routes only: building the document calls none of them, and any call
 * says so.
 */
const unreachable = new Proxy({} as Backends, {
  get: (_target, backend) =>
    new Proxy(
      {},
      {
        get: (_t, method) => () => {
          throw new Error(
            `the OpenAPI build calls no back end (${String(backend)}.${String(method)})`,
          );
        },
      },
    ),
});

/**
 * The OpenAPI document the edge serves at `/openapi.json`, built from its routes in this process
 * (no back end, no socket): what scripts/generate-openapi.ts writes to docs/api/openapi.json.
 */
export async function buildOpenApiDocument(): Promise<Record<string, unknown>> {
  const app = createHttpServer({ logger: createLogger({ service: 'openapi', level: 'silent' }) });
  try {
    await registerEdgeRoutes(app, {
      adminToken: 'an admin token that never serves a request',
      version: OPENAPI_DOCUMENT_VERSION,
      backends: unreachable,
    });
    await app.ready();
    return JSON.parse(JSON.stringify(app.swagger())) as Record<string, unknown>;
  } finally {
    await app.close();
  }
}
