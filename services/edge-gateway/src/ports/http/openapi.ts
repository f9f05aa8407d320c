import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

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
        description:
          'Discovery, international discovery, publishing, deals, commerce, partner cart, top picks, secure render and the admin API of the Marquee ticketing platform.',
        version: info.version,
      },
      components: {
        securitySchemes: {
          adminToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'ADMIN_TOKEN of the deployment',
          },
          apiKey: { type: 'apiKey', in: 'query', name: 'apikey' },
          gateToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'A gate token of the gate API, from POST /admin/v1/gates',
          },
        },
      },
    },
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
