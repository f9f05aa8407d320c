import { Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchemaCompiler,
} from 'fastify';
import type { Backends } from '../../../app/backends.js';
import { requireApiKey } from '../api-key-guard.js';
import type { ApiFamily } from '../families/family.js';
import { sendFamilyError, toFamilyError } from '../families/register-family.js';
import { PublishedEventSchema, propertyPath } from '@marquee/api-schemas';
import { documentedPublishedEvent } from './documented-event.js';
import { IDEMPOTENCY_KEY_IN_PROGRESS, IDEMPOTENCY_KEY_REUSED } from '@marquee/platform/idempotency';

/** The path `version` may be left out, default `v2`; it is the only version there is. */
const SUPPORTED_VERSION = 'v2';

type PropertyMap = Record<string, string>;

interface ErrorItem {
  status: 'Rejected' | 'Error';
  code: string;
  detail: string;
  invalidProperties: Record<string, unknown>;
  missingProperties: Record<string, unknown>;
}

/** The publishing error body: `errors[]` with status, code, detail and the property maps. */
const errorBody = (items: ErrorItem[]) => ({ errors: items });

const rejected = (code: string, detail: string, invalid: PropertyMap = {}): ErrorItem => ({
  status: 'Rejected',
  code,
  detail,
  invalidProperties: invalid,
  missingProperties: {},
});

const ErrorItemSchema = Type.Object({
  status: Type.String({ description: '`Rejected` (400) or `Error`' }),
  code: Type.String(),
  detail: Type.String(),
  invalidProperties: Type.Record(Type.String(), Type.Unknown()),
  missingProperties: Type.Record(Type.String(), Type.Unknown()),
});
const ErrorBody = Type.Object({ errors: Type.Array(ErrorItemSchema) });

const PublicationResult = Type.Object({
  status: Type.Union([Type.Literal('Success'), Type.Literal('SuccessWarning')]),
  message: Type.Optional(Type.String()),
  id: Type.String({ description: 'Generated public id of the event (15 alphanumeric characters)' }),
  missingProperties: Type.Record(Type.String(), Type.Unknown()),
  unknownProperties: Type.Record(Type.String(), Type.Unknown()),
});

const ApiKeyQuery = Type.Object({
  apikey: Type.Optional(Type.String({ description: 'Required on every call' })),
});
const DeleteQuery = Type.Object({
  apikey: Type.Optional(Type.String()),
  version: Type.Optional(
    Type.String({
      pattern: '^\\d+(\\.\\d+)?$',
      description: "The publisher's version of the deletion; must not be lower than the stored one",
    }),
  ),
});
const PublishHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7e]+$',
      description:
        'Makes the publication safe to retry: a retry with the same key and the same body, by the ' +
        'same app within 24 h, answers the first outcome (the same status, body and event id) ' +
        'instead of creating another event. The same key with a different body answers 422 ' +
        '`IDEMPOTENCY_KEY_REUSED`; a retry while the first request still runs waits for it, then ' +
        'answers 409 `IDEMPOTENCY_KEY_IN_PROGRESS`. At most 255 printable ASCII characters; a ' +
        'random UUID per publication is a good key.',
    }),
  ),
});
const ListQuery = Type.Object({
  apikey: Type.Optional(Type.String({ description: 'Required on every call' })),
  size: Type.Optional(
    Type.String({
      pattern: '^(100|[1-9][0-9]?)$',
      description: 'Events per page, 1 to 100 (default 20)',
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9_-]{1,200}$',
      description:
        '`nextCursor` of the previous page, as answered (opaque: another value answers 400 `INVALID_CURSOR`); absent for the first page',
    }),
  ),
});
const ListedEvent = Type.Object({
  id: Type.String(),
  createdAt: Type.String({ format: 'date-time', description: 'When the event was published' }),
  updatedAt: Type.String({ format: 'date-time', description: 'When it last changed' }),
  event: Type.Object(
    {},
    {
      additionalProperties: true,
      description: 'The last accepted body, verbatim (unknown properties included)',
    },
  ),
});
const EventList = Type.Object({
  events: Type.Array(ListedEvent, { description: 'Newest publication first (ties by id)' }),
  nextCursor: Type.Optional(
    Type.String({ description: 'Pass as `cursor` for the next page; absent on the last page' }),
  ),
});
/** The API version of the path: `v2` (another answers 404 `UNSUPPORTED_VERSION`). */
const Version = Type.Literal(SUPPORTED_VERSION, {
  description: 'API version; another answers 404 `UNSUPPORTED_VERSION`',
});
const VersionParams = Type.Object({ version: Version });
const IdParams = Type.Object({ id: Type.String() });
const VersionIdParams = Type.Object({ version: Version, id: Type.String() });

/**
 * Validates with TypeBox's compiler instead of the server's ajv: ajv's type coercion would turn
 * `"version": "3"` into 3 and `"active": "true"` into true, and the publishing API rejects wrong
 * types. Errors keep ajv's shape (`instancePath`, `message`), so fastify reports them as usual.
 */
const typeBoxCompiler: FastifySchemaCompiler<unknown> = ({ schema }) => {
  const check = TypeCompiler.Compile(schema as TSchema);
  return (data: unknown) => {
    if (check.Check(data)) return { value: data };
    const seen = new Set<string>();
    const error = [...check.Errors(data)]
      .filter((e) => !seen.has(e.path) && seen.add(e.path))
      .map((e) => ({
        instancePath: e.path,
        message: 'patternProperties' in e.schema ? 'locale keys must be xx-yy' : e.message,
        keyword: 'type',
        schemaPath: '',
        params: {},
      }));
    return { error } as never;
  };
};

function validationItem(error: FastifyError): ErrorItem {
  const invalid: PropertyMap = {};
  for (const item of error.validation ?? []) {
    const path = propertyPath(item.instancePath) || '(body)';
    invalid[path] ??= (item.message ?? 'is invalid').replace(/^./, (c) => c.toLowerCase());
  }
  return rejected('INVALID_PROPERTY', 'Some properties have a wrong type or format', invalid);
}

/**
 * Every error of these routes in the publishing body. Errors from publisher carry its own items
 * (`details.errors`: rule violations, stale versions, unknown ids); everything else goes through
 * the family's mapping. A body that is not JSON is a malformed request: 400.
 */
function sendError(family: ApiFamily, request: FastifyRequest, reply: FastifyReply, err: unknown) {
  const error = err as FastifyError & { kind?: string; details?: { errors?: unknown } };
  if (error.validation) {
    return reply.code(400).send(errorBody([validationItem(error)]));
  }
  if (
    error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    error instanceof SyntaxError
  ) {
    // Also a body with a prototype-poisoning key (`__proto__`, `constructor.prototype`): fastify's
    // JSON parser refuses it as it refuses one that is not JSON, with the same error.
    return reply
      .code(400)
      .send(errorBody([rejected('MALFORMED_REQUEST', 'The request body is not valid JSON')]));
  }
  const reason = (error.details as { reason?: unknown } | undefined)?.reason;
  if (reason === IDEMPOTENCY_KEY_REUSED) {
    request.log.info({ status: 422, family: family.id }, 'idempotency key reused');
    return reply
      .code(422)
      .send(
        errorBody([
          rejected(
            'IDEMPOTENCY_KEY_REUSED',
            'This Idempotency-Key was already used with a different body; use a new key for a new publication',
          ),
        ]),
      );
  }
  if (reason === IDEMPOTENCY_KEY_IN_PROGRESS) {
    return reply.code(409).send(
      errorBody([
        {
          ...rejected(
            'IDEMPOTENCY_KEY_IN_PROGRESS',
            'The first request with this Idempotency-Key is still running; retry later',
          ),
          status: 'Error',
        },
      ]),
    );
  }
  const mapped = toFamilyError(family, error);
  const items = error.details?.errors;
  if (typeof error.kind === 'string' && Array.isArray(items) && items.length > 0) {
    request.log.info({ status: mapped.status, family: family.id }, 'publication rejected');
    return reply.code(mapped.status).send(errorBody(items as ErrorItem[]));
  }
  if (mapped.status >= 500) request.log.error({ err, family: family.id }, 'request failed');
  return sendFamilyError(reply, family, mapped);
}

const documentedBody = documentedPublishedEvent();

/** The OpenAPI operation of a route with the documented body instead of the validated one. */
function withDocumentedBody({ schema, url }: { schema: unknown; url: string }) {
  const route = schema as { body?: unknown };
  return { schema: route.body ? { ...route, body: documentedBody } : route, url } as never;
}

function wrongVersion(reply: FastifyReply, version: string | undefined) {
  if (version === undefined || version === SUPPORTED_VERSION) return false;
  void reply.code(404).send(
    errorBody([
      {
        status: 'Error',
        code: 'UNSUPPORTED_VERSION',
        detail: `Unknown publishing API version '${version}'; use ${SUPPORTED_VERSION}`,
        invalidProperties: {},
        missingProperties: {},
      },
    ]),
  );
  return true;
}

/**
 * The publishing family: POST creates an event, PUT replaces it, DELETE
 * removes it (update and delete are our design, see services/publisher/README.md). Each path exists
 * with the `{version}` segment and without it (the default `v2`). Every call needs `apikey`.
 */
export function publishingRoutes(backends: Backends) {
  return async (familyScope: FastifyInstance, family: ApiFamily): Promise<void> => {
    // The key guard lives in a child scope so that it covers these routes only: an unknown path
    // under /publish still answers the family's 404 (and a wrong method its 405) without a key.
    await familyScope.register(async (scope) => {
      requireApiKey(scope, family, backends.developerAccess, {
        from: [{ in: 'query', name: 'apikey' }],
        rateLimitHeaders: false,
      });
      await routes(scope, family);
    });
  };

  async function routes(scope: FastifyInstance, family: ApiFamily): Promise<void> {
    const common = {
      // The document states the publishing rules too (documented-event.ts); the edge validates
      // the types, publisher the rules.
      config: { swaggerTransform: withDocumentedBody },
      // Typed per route schema by fastify; this compiler takes any TypeBox schema.
      validatorCompiler: typeBoxCompiler as never,
      // Validation problems reach the handler, so a bad key is a 401 before any 400 about the body.
      attachValidation: true,
      errorHandler: (err: FastifyError, request: FastifyRequest, reply: FastifyReply) =>
        sendError(family, request, reply, err),
    };
    const responses = {
      200: PublicationResult,
      400: ErrorBody,
      401: ErrorBody,
      404: ErrorBody,
      409: ErrorBody,
    };
    const appOf = (request: FastifyRequest) => request.appId ?? '';
    const bodyOf = (request: FastifyRequest) => request.body as Record<string, unknown>;
    const render = (answer: Awaited<ReturnType<Backends['publishing']['publishEvent']>>) => ({
      status: answer.status,
      ...(answer.message ? { message: answer.message } : {}),
      id: answer.id,
      missingProperties: answer.missingProperties,
      unknownProperties: answer.unknownProperties,
    });

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
          if (wrongVersion(reply, (request.params as { version?: string }).version)) return reply;
          if (request.validationError) throw request.validationError;
          const key = (request.headers as { 'idempotency-key'?: string })['idempotency-key'];
          const answer = await backends.publishing.publishEvent({
            appId: appOf(request),
            event: bodyOf(request),
            ...(key === undefined ? {} : { idempotencyKey: key }),
          });
          return reply.code(200).send(render(answer));
        },
      );
    }

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
          if (wrongVersion(reply, (request.params as { version?: string }).version)) return reply;
          if (request.validationError) throw request.validationError;
          const query = request.query as { size?: string; cursor?: string };
          const page = await backends.publishing.listEvents({
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
          const params = request.params as { version?: string; id: string };
          if (wrongVersion(reply, params.version)) return reply;
          if (request.validationError) throw request.validationError;
          const answer = await backends.publishing.updateEvent({
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
          const params = request.params as { version?: string; id: string };
          if (wrongVersion(reply, params.version)) return reply;
          if (request.validationError) throw request.validationError;
          const body = await backends.publishing.getEvent({ appId: appOf(request), id: params.id });
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
          const params = request.params as { version?: string; id: string };
          if (wrongVersion(reply, params.version)) return reply;
          if (request.validationError) throw request.validationError;
          const version = (request.query as { version?: string }).version;
          await backends.publishing.deleteEvent({
            appId: appOf(request),
            id: params.id,
            ...(version === undefined ? {} : { publisherVersion: Number(version) }),
          });
          return reply.code(204).send();
        },
      );
    }
  }
}
