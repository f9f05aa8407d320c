import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { appOf, type PublishingContext } from './route-options.js';
import { ErrorBody, EventList, ListQuery, VersionParams } from './schemas.js';

/** `GET [/{version}]/events`: the app's published events, newest first, a page at a time. */
export function listingRoutes(scope: FastifyInstance, { publishing, common }: PublishingContext) {
  for (const path of ['/:version/events', '/events']) {
    scope.get(
      path,
      {
        ...common,
        schema: {
          tags: ['publishing'],
          summary: "List this app's published events, newest first, a page at a time",
          description:
            'Events the app published and has not deleted, newest publication first. Pages ' +
            'follow `nextCursor`: a page starts right after the last event of the previous ' +
            'one, so events published meanwhile never repeat or skip one.',
          querystring: ListQuery,
          ...(path.startsWith('/:') ? { params: VersionParams } : {}),
          response: {
            200: EventList,
            400: Type.Object(ErrorBody.properties, {
              description:
                '`INVALID_PROPERTY`: `size` not an integer from 1 to 100; `INVALID_CURSOR`: a ' +
                '`cursor` this API did not answer',
            }),
            401: ErrorBody,
            404: Type.Object(ErrorBody.properties, {
              description: '`UNSUPPORTED_VERSION`: a path version other than v2',
            }),
          },
        },
      },
      async (request, reply) => {
        const query = request.query as { size?: string; cursor?: string };
        const page = await publishing.listEvents({
          appId: appOf(request),
          ...(query.size === undefined ? {} : { size: Number(query.size) }),
          ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
        });
        return reply.code(200).send({
          events: page.events.map((listed) => ({
            id: listed.id,
            createdAt: listed.createdAt.toISOString(),
            updatedAt: listed.updatedAt.toISOString(),
            event: listed.event,
          })),
          ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
        });
      },
    );
  }
}
