import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { FastifyError, FastifyReply, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import type { Backends } from '../../../app/backends.js';
import type { ApiFamily } from '../families/family.js';
import { documentedPublishedEvent } from './documented-event.js';
import { refusedVersion, sendPublishingError } from './errors.js';

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

const documentedBody = documentedPublishedEvent();

/** The OpenAPI operation of a route with the documented body instead of the validated one. */
function withDocumentedBody({ schema, url }: { schema: unknown; url: string }) {
  const route = schema as { body?: unknown };
  return { schema: route.body ? { ...route, body: documentedBody } : route, url } as never;
}

/**
 * The options every publishing route shares: the documented body in the OpenAPI document,
 * TypeBox's validator, the publishing error body, and, before the handler, the one check each of
 * them makes first: a path version other than v2 is 404 `UNSUPPORTED_VERSION`, whatever else is
 * wrong with the request; then a request that failed validation is refused (400).
 */
export function publishingRouteOptions(family: ApiFamily) {
  return {
    // The document states the publishing rules too (documented-event.ts); the edge validates
    // the types, publisher the rules.
    config: { swaggerTransform: withDocumentedBody },
    // Typed per route schema by fastify; this compiler takes any TypeBox schema.
    validatorCompiler: typeBoxCompiler as never,
    // Validation problems reach the preHandler below: a wrong version is a 404 before any 400.
    attachValidation: true,
    preHandler: async (request: FastifyRequest, reply: FastifyReply) => {
      if (refusedVersion(reply, (request.params as { version?: string }).version)) return reply;
      if (request.validationError) throw request.validationError;
    },
    errorHandler: (err: FastifyError, request: FastifyRequest, reply: FastifyReply) =>
      sendPublishingError(family, request, reply, err),
  };
}

/** What the publishing route modules share (publishing-routes.ts makes it per prefix). */
export interface PublishingContext {
  readonly publishing: Backends['publishing'];
  /** {@link publishingRouteOptions} of the family. */
  readonly common: ReturnType<typeof publishingRouteOptions>;
}

/** The calling app (set by the key guard). */
export const appOf = (request: FastifyRequest) => request.appId ?? '';
