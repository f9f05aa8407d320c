import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { completeDocument } from './openapi-contract.js';
import { securitySchemes } from './security.js';

/**
 * The Content-Security-Policy of every `/docs` answer. The Swagger UI page is three scripts, two
 * style sheets and its favicons, all from `/docs/static` of this origin, with no inline script or
 * style element; its style sheets draw icons as `data:` images; it fetches `/docs/json` and, with
 * "Try it out", the API on this origin. Nothing else is allowed: no inline or injected script, no
 * eval, no plugins, no frames in either direction, no form posts, no `<base>` rewriting. (Checked
 * in headless Chromium: the page, "Try it out" and the authorize dialog run without a violation.)
 */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Headers of every `/docs` answer. The page shares its origin with the OAuth pages the edge proxies
 * (`/oauth/*`), whose interaction cookie is `HttpOnly`, host-only, `SameSite=Strict` and
 * `Path=/oauth` (so `/docs` requests never carry it); the CSP keeps any script but the UI's own off
 * the page, and the page can neither frame `/oauth` (no `frame-src` is allowed) nor be framed
 * itself (`frame-ancestors 'none'`, and `X-Frame-Options: DENY` for browsers before CSP 2).
 */
const DOCS_HEADERS = {
  'content-security-policy': DOCS_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

/**
 * Version of the public API document (not of the process); bumped when routes change. The
 * committed docs/api/openapi.json is generated with it (scripts/generate-openapi.ts).
 */
export const OPENAPI_DOCUMENT_VERSION = '0.2.0';

/** What the whole document promises, shown on top of `/docs`. */
const DOCUMENT_DESCRIPTION = [
  'Discovery, international discovery, publishing, deals, commerce, partner cart, top picks, secure render, gate and the admin API of the Marquee ticketing platform.',
  '',
  'Each operation lists every status it can answer. Errors come in the body of the API family the path belongs to (its own documented error shape, never a stack trace). Request bodies are checked without type coercion (`"name": false` is not a name); query parameters and headers are text, read as numbers or booleans where the schema says so. Unknown properties are refused where a schema says so. A JSON body with a `__proto__` key, or a `constructor` key holding `prototype`, at any depth is refused with 400 (protection against prototype poisoning).',
  '',
  'A known path asked with a method it does not have answers 405 with `Allow`; an unknown path 404. 429 (an app over its quota) and 503 (a back end unavailable or at its limit) carry `Retry-After` in whole seconds. A path segment longer than 100 characters is refused with 414 before routing.',
  '',
  'The OAuth 2.0 authorization server of fans (`/oauth/authorize`, `/oauth/token`, `/oauth/info`, `/oauth/revoke`) is served on the same origin and documented with auth-gateway; it is not part of this document.',
].join('\n');

/**
 * The OpenAPI 3 document is generated from the route schemas, so every route is documented by
 * construction: `GET /openapi.json` and a browsable page at `/docs` (with {@link DOCS_HEADERS}).
 */
export async function registerOpenApi(
  app: FastifyInstance,
  info: { version: string },
): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Marquee public API',
        description: DOCUMENT_DESCRIPTION,
        version: info.version,
      },
      components: { securitySchemes },
    },
    // Every status an operation can answer, in its family's body (openapi-contract.ts).
    transformObject: (document) =>
      // A copy: the pass moves schemas to components, and the routes' own schemas must stay whole.
      completeDocument(
        JSON.parse(
          JSON.stringify('openapiObject' in document ? document.openapiObject : {}),
        ) as Record<string, unknown>,
      ) as never,
  });
  // An encapsulated scope: the hook sets the headers on the UI's routes only (the page, its static
  // files, /docs/json and /docs/yaml), whatever answers them, errors included.
  await app.register(async (docs) => {
    docs.addHook('onSend', async (_request, reply, payload) => {
      void reply.headers(DOCS_HEADERS);
      return payload;
    });
    await docs.register(swaggerUi, {
      routePrefix: '/docs',
      // The page without the standalone top bar: its logo is an SVG with an inline style element
      // (which the CSP refuses), and its address bar loads other documents, which the page does
      // not need.
      uiConfig: { layout: 'BaseLayout' },
    });
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
