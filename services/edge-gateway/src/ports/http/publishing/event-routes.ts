import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PublishedEventSchema } from '@marquee/api-schemas';
import type { Backends } from '../../../app/backends.js';
import { appOf, type PublishingContext } from './route-options.js';
import {
  ApiKeyQuery,
  DeleteQuery,
  ErrorBody,
  IdParams,
  PublicationResult,
  PublishHeaders,
  VersionIdParams,
  VersionParams,
} from './schemas.js';

const responses = {
  200: PublicationResult,
  400: ErrorBody,
  401: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
};

const bodyOf = (request: FastifyRequest) => request.body as Record<string, unknown>;

const render = (answer: Awaited<ReturnType<Backends['publishing']['publishEvent']>>) => ({
  status: answer.status,
  ...(answer.message ? { message: answer.message } : {}),
  id: answer.id,
  missingProperties: answer.missingProperties,
  unknownProperties: answer.unknownProperties,
});

/** `POST [/{version}]/events`: publish an event; answers its generated id. */
export function publishRoutes(scope: FastifyInstance, { publishing, common }: PublishingContext) {
  for (const path of ['/:version/events', '/events']) {
    scope.post(
      path,
      {
        ...common,
        schema: {
          tags: ['publishing'],
          summary: 'Publish an event; answers the generated id',
          description:
            'Creates a new event on every call. Send an `Idempotency-Key` header to make retries ' +
            'safe: a retry with the same key and body answers the first outcome and creates ' +
            'nothing more.',
          querystring: ApiKeyQuery,
          headers: PublishHeaders,
          ...(path.startsWith('/:') ? { params: VersionParams } : {}),
          body: PublishedEventSchema,
          response: {
            ...responses,
            409: Type.Object(ErrorBody.properties, {
              description:
                '`IDEMPOTENCY_KEY_IN_PROGRESS`: the first request with this Idempotency-Key is still running',
            }),
            422: Type.Object(ErrorBody.properties, {
              description:
                '`IDEMPOTENCY_KEY_REUSED`: the Idempotency-Key was used with a different body',
            }),
          },
        },
      },
      async (request, reply) => {
        const key = (request.headers as { 'idempotency-key'?: string })['idempotency-key'];
        const answer = await publishing.publishEvent({
          appId: appOf(request),
          event: bodyOf(request),
          ...(key === undefined ? {} : { idempotencyKey: key }),
        });
        return reply.code(200).send(render(answer));
      },
    );
  }
}

/** `[/{version}]/events/{id}`: replace (PUT), read (GET) and delete (DELETE) a published event. */
export function eventRoutes(scope: FastifyInstance, { publishing, common }: PublishingContext) {
  for (const path of ['/:version/events/:id', '/events/:id']) {
    const EventParams = path.startsWith('/:') ? VersionIdParams : IdParams;
    scope.put(
      path,
      {
        ...common,
        schema: {
          tags: ['publishing'],
          summary:
            "Replace an event this app published; the body's version must be greater than the stored one",
          querystring: ApiKeyQuery,
          params: EventParams,
          body: PublishedEventSchema,
          response: responses,
        },
      },
      async (request, reply) => {
        const params = request.params as { id: string };
        const answer = await publishing.updateEvent({
          appId: appOf(request),
          id: params.id,
          event: bodyOf(request),
        });
        return reply.code(200).send(render(answer));
      },
    );

    scope.get(
      path,
      {
        ...common,
        schema: {
          tags: ['publishing'],
          summary: 'Read an event this app published: the last accepted body with its id',
          querystring: ApiKeyQuery,
          params: EventParams,
          response: {
            200: Type.Object({ id: Type.String() }, { additionalProperties: true }),
            401: ErrorBody,
            404: ErrorBody,
          },
        },
      },
      async (request, reply) => {
        const params = request.params as { id: string };
        const body = await publishing.getEvent({ appId: appOf(request), id: params.id });
        return reply.code(200).send({ id: params.id, ...body });
      },
    );

    scope.delete(
      path,
      {
        ...common,
        schema: {
          tags: ['publishing'],
          summary: 'Delete an event this app published; event-changed gets a tombstone',
          querystring: DeleteQuery,
          params: EventParams,
          response: { 204: Type.Null(), 401: ErrorBody, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (request, reply) => {
        const params = request.params as { id: string };
        const version = (request.query as { version?: string }).version;
        await publishing.deleteEvent({
          appId: appOf(request),
          id: params.id,
          ...(version === undefined ? {} : { publisherVersion: Number(version) }),
        });
        return reply.code(204).send();
      },
    );
  }
}
