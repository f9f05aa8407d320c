import { AjvCompiler } from '@fastify/ajv-compiler';
import FindMyWay from 'find-my-way';
import { setFrameworkErrorHandler } from '@marquee/platform/http';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchemaCompiler,
} from 'fastify';
import { DEPENDENCIES } from '../parameter-dependencies.js';
import type { ApiFamily, FamilyError } from './family.js';

/** gRPC-derived error kinds (see @marquee/platform/errors) and the HTTP status each maps to. */
const statusForKind: Record<string, number> = {
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  already_exists: 409,
  aborted: 409,
  failed_precondition: 409,
  resource_exhausted: 429,
  unavailable: 503,
  deadline_exceeded: 504,
};

/** The methods a route of a family can have; what `Allow` lists. */
const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Validators of the families' routes: fastify's ajv (formats, the server's options), with two
 * differences from the server's default. Bodies are never coerced: JSON has types, and a body
 * whose `name` is `false` is refused instead of becoming the string "false". The query string,
 * path parameters and headers are text on the wire, so they are coerced where the schema says
 * number, integer or boolean (and a single value where it says array), as fastify does by default.
 * Lengths count characters (code points), as JSON Schema and the document say. Routes that bring
 * their own compiler (publishing: TypeBox's, the same check as publisher's) keep it.
 * `x-dependencies` (rules between query parameters, parameter-dependencies.ts) is an annotation
 * here: the handlers enforce those rules, with the family's own error code.
 */
const ajvCompilers = AjvCompiler();
const strictBodyValidator = ajvCompilers(
  {},
  {
    customOptions: {
      coerceTypes: false,
      removeAdditional: false,
      allErrors: true,
      keywords: [DEPENDENCIES],
    },
  },
);
const textValidator = ajvCompilers(
  {},
  {
    customOptions: {
      coerceTypes: 'array',
      removeAdditional: false,
      allErrors: true,
      keywords: [DEPENDENCIES],
    },
  },
);
export const familyValidatorCompiler: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body' ? strictBodyValidator(route) : textValidator(route);

export type FamilyRoutes = (scope: FastifyInstance, family: ApiFamily) => Promise<void> | void;

/**
 * Seconds a client should wait before retrying a 503 (a back end restarting, a passing fault) or a
 * 429 whose refusal named no wait of its own.
 */
const RETRY_AFTER_SECONDS = '1';

export function sendFamilyError(
  reply: FastifyReply,
  family: ApiFamily,
  error: FamilyError,
): FastifyReply {
  // A 503 or a 429 is worth retrying: say when, so generic HTTP clients and proxies know.
  if ((error.status === 503 || error.status === 429) && !reply.hasHeader('retry-after')) {
    reply.header(
      'retry-after',
      error.retryAfterSeconds !== undefined ? String(error.retryAfterSeconds) : RETRY_AFTER_SECONDS,
    );
  }
  return reply.code(error.status).type('application/json').send(family.errorBody(error));
}

/**
 * Logs a failed request (an error at 5xx, a refusal at info) and answers it with the family's
 * body.
 */
export function logAndSendFamilyError(
  err: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  family: ApiFamily,
  error: FamilyError,
): FastifyReply {
  if (error.status >= 500) request.log.error({ err, family: family.id }, 'request failed');
  else
    request.log.info(
      { code: error.code, status: error.status, family: family.id },
      'request rejected',
    );
  return sendFamilyError(reply, family, error);
}

/** Maps any error thrown inside a family's scope to that family's documented body. */
export function toFamilyError(
  family: ApiFamily,
  err: FastifyError & { kind?: string; details?: object },
): FamilyError {
  if (err.validation) {
    return { status: family.validationStatus, code: 'invalid_request', detail: err.message };
  }
  if (typeof err.kind === 'string' && err.kind in statusForKind) {
    const status = statusForKind[err.kind]!;
    // A service's own error code (google.rpc.ErrorInfo.reason, read by the gRPC adapter) is the
    // family body's code when there is one; the kind otherwise.
    const reason = (err.details as { reason?: unknown } | undefined)?.reason;
    return {
      status: status === 400 ? family.validationStatus : status,
      code: typeof reason === 'string' && reason.length > 0 ? reason : err.kind,
      detail: err.message,
    };
  }
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    // fastify's own client errors: malformed JSON, unsupported media type, body too large...
    return { status, code: err.code ?? 'bad_request', detail: err.message };
  }
  return { status: 500, code: 'internal', detail: 'Internal server error' };
}

/**
 * Registers a family's routes under each of its prefixes with the family's error handler, its
 * validators ({@link familyValidatorCompiler}), a 404 for an unknown path and a 405 with `Allow`
 * for a known path asked with another method (whatever the method: `QUERY`, `TRACE` and `OPTIONS`
 * too), and the family's answer to what the router refuses before any route is chosen (a path
 * segment over 100 characters: 414; a URL that does not decode: 400), so all of that is in the
 * family's body.
 */
export async function registerFamily(
  app: FastifyInstance,
  family: ApiFamily,
  routes: FamilyRoutes,
): Promise<void> {
  for (const prefix of family.prefixes) {
    await app.register(
      async (scope) => {
        // A private router of this scope's paths, only to tell 405 from 404: a method is allowed
        // on a path when one of its routes matches the path and accepts its parameters (`DELETE
        // /carts/{cartId}` does not make `/carts/1.json` a cart, the pattern of cartId says so).
        const known = FindMyWay();
        scope.addHook('onRoute', (route) => {
          const params = (route.schema as { params?: unknown } | undefined)?.params;
          const accepts = params
            ? textValidator({ schema: params, method: 'GET', url: route.url, httpPart: 'params' })
            : undefined;
          for (const m of [route.method].flat()) {
            if (methods.includes(m as (typeof methods)[number])) {
              known.on(m as (typeof methods)[number], route.url, () => undefined, { accepts });
            }
          }
        });
        scope.setValidatorCompiler(familyValidatorCompiler);
        scope.setErrorHandler((err: FastifyError & { kind?: string }, request, reply) =>
          logAndSendFamilyError(err, request, reply, family, toFamilyError(family, err)),
        );
        setFrameworkErrorHandler(scope, (err, _request, reply) =>
          sendFamilyError(reply, family, {
            status: err.statusCode,
            code: family.invalidRequestCode ?? 'invalid_request',
            detail: err.message,
          }),
        );
        const unknown = (request: FastifyRequest, reply: FastifyReply) => {
          const path = request.url.split('?')[0] ?? request.url;
          const allowed = methods.filter((m) => {
            const found = known.find(m, path);
            if (found === null) return false;
            const { accepts } = found.store as { accepts?: (params: unknown) => boolean };
            return accepts === undefined || accepts({ ...found.params }) === true;
          });
          if (allowed.length > 0 && !allowed.includes(request.method as (typeof methods)[number])) {
            void reply.header('allow', allowed.join(', '));
            return sendFamilyError(reply, family, {
              status: 405,
              code: 'method_not_allowed',
              detail: `Method ${request.method} is not allowed for ${path}`,
            });
          }
          return sendFamilyError(reply, family, {
            status: 404,
            code: family.id === 'discovery' ? 'DIS1004' : 'not_found',
            detail: `Resource not found: ${path}`,
          });
        };
        // Answered first, before any guard or body parsing: a method with a body (POST, QUERY)
        // on an unknown route would otherwise be refused for its body, not for its method.
        scope.addHook('onRequest', async (request, reply) => {
          if (request.is404) return unknown(request, reply);
        });
        scope.setNotFoundHandler(unknown);
        await routes(scope, family);
      },
      { prefix },
    );
  }
}
