import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/**
 * The OpenAPI 3 document is generated from the route schemas, so every route is documented by
 * construction: `GET /openapi.json` and a browsable page at `/docs`.
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
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
