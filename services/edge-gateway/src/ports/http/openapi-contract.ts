import { allFamilies } from './families/catalog.js';
import type { ApiFamily } from './families/family.js';
import { hoistNamedSchemas } from './openapi-components.js';
import { DEPENDENCIES } from './parameter-dependencies.js';
import { assertUniqueOperationIds, operationIdOf } from './openapi-operation-ids.js';
import { securitySchemes } from './security.js';

/**
 * Makes the OpenAPI document the whole contract of each operation: besides what a route declares
 * (its success and its own refusals), every status the edge itself can answer for it, in the body
 * of its API family. Those come from the family's framework, the same for every route of a
 * family (register-family.ts, the guards), so they are added here from what the document already
 * says about the operation rather than repeated in every route:
 *
 * - 400 (and the family's validation status, 406 for deals): a parameter, header or body the
 *   schema refuses, a body that is not JSON, a URL that does not decode;
 * - 414: a path parameter longer than the router's 100 characters (refused before routing);
 * - 413 and 415 on methods that carry a body: over 1 MiB, a media type the route does not parse;
 * - 401 when the operation has a `security` requirement, and 429 (with `Retry-After`) when that
 *   is an app's API key: the quota;
 * - 500 (a defect; the body never carries details), 503 (with `Retry-After`) and 504: a back end
 *   unavailable, at its limit, or too slow.
 *
 * - 431: a request line and headers over the HTTP server's 16 KiB, refused by the server before
 *   any route is chosen, so in its own body `{error, message, statusCode}` (the one status not in
 *   the family's body: nothing of the request is read yet).
 *
 * Answers of 429 and 503 carry `Retry-After` (whole seconds), and the document says so. Every
 * answer declares `X-Correlation-Id` (the edge's id of the request, in its logs too), and every
 * answer of an operation an app's API key guards declares the quota headers (`Rate-Limit`,
 * `Rate-Limit-Available`, `Rate-Limit-Reset`, `Rate-Limit-Over`, rate-limit-headers.ts), except
 * those sent before the key is read (401, 414, 431). They are declared optional: an answer refused
 * before the guard ran has none.
 *
 * A parameter's rules with other parameters move from its schema to the parameter itself
 * (`x-dependencies`, parameter-dependencies.ts).
 *
 * It also gives each operation its `operationId` (openapi-operation-ids.ts), moves the named
 * schemas to `components/schemas` (openapi-components.ts) and states the `servers`.
 */

type Json = Record<string, unknown>;

interface Operation {
  operationId?: string;
  parameters?: Array<{ in: string; name: string; schema?: Json; [DEPENDENCIES]?: unknown }>;
  requestBody?: { required?: boolean };
  [OPTIONAL_BODY]?: boolean;
  security?: Array<Record<string, unknown>>;
  responses?: Record<string, Json>;
}

/**
 * A route schema's mark (`[OPTIONAL_BODY]: true`) that its body may be left out: the OpenAPI
 * generator marks every body schema required (fastify wants at least `{}` once a body schema is
 * declared), so a route that fills in an absent body (`emptyBodyWhenAbsent`) says so here and
 * `completeDocument` turns `requestBody.required` off.
 */
export const OPTIONAL_BODY = 'x-body-optional';

/** A route's `preValidation` for an optional body: no body at all is the empty one. */
export const emptyBodyWhenAbsent = async (request: { body: unknown }): Promise<void> => {
  request.body ??= {};
};

const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** What each status means when the route does not say more. */
export const STATUS_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'Invalid request: a parameter, header or body the schema refuses, a body that is not JSON, or a URL that does not decode',
  401: 'Missing or invalid credentials',
  403: 'The credentials do not allow this',
  404: 'Not found',
  405: 'Method not allowed on this path (`Allow` lists the methods it has)',
  406: 'An unacceptable parameter (the message names it)',
  409: 'Conflict with the current state',
  413: 'Body larger than 1 MiB',
  414: 'A path segment longer than 100 characters',
  431: 'Request line and headers over 16 KiB, refused before routing (in the server body)',
  415: 'Content-Type not accepted (send application/json)',
  422: 'Idempotency-Key reused with a different request',
  429: "Over the app's quota: retry after the seconds of `Retry-After`",
  500: 'Internal error (a defect); the body carries no details',
  502: 'A partner system answered badly',
  503: 'A back end is unavailable or at its limit: retry after the seconds of `Retry-After`',
  504: 'A back end did not answer in time',
};

/** The HTTP server's own body of a request it refuses before reading it (431). */
const SERVER_ERROR = {
  type: 'object',
  properties: {
    error: { type: 'string' },
    message: { type: 'string' },
    statusCode: { type: 'integer' },
  },
};

/**
 * Where the API is served: the origin the document was fetched from (`/`), or a host named by the
 * client (a generated client's base URL).
 */
export const SERVERS = [
  { url: '/', description: 'The origin this document is served from' },
  {
    url: 'https://{host}',
    description: 'A Marquee deployment, by host name',
    variables: { host: { default: 'api.example.com', description: 'The host name of the edge' } },
  },
];

const RETRY_AFTER = {
  required: true,
  description: 'Whole seconds to wait before retrying',
  schema: { type: 'integer', minimum: 1 },
};

const CORRELATION_ID = {
  required: false,
  description:
    "The edge's id of this request, as in its logs: the request's own `X-Correlation-Id` when it is 1 to 128 printable ASCII characters (no blank at either end), a new one otherwise",
  schema: { type: 'string' },
};

/** The app's quota after this call (rate-limit-headers.ts), on the answers of a keyed operation. */
const RATE_LIMIT_HEADERS = {
  'Rate-Limit': {
    required: false,
    description: "The app's quota: calls a day",
    schema: { type: 'integer', minimum: 0 },
  },
  'Rate-Limit-Available': {
    required: false,
    description: 'Calls left in the current window',
    schema: { type: 'integer' },
  },
  'Rate-Limit-Reset': {
    required: false,
    description: 'When the window resets, in milliseconds since the epoch',
    schema: { type: 'integer', minimum: 0 },
  },
  'Rate-Limit-Over': {
    required: false,
    description: '1 when this call was over the quota (and refused with 429), 0 otherwise',
    schema: { type: 'integer', enum: [0, 1] },
  },
};

/** The response headers the document declares on many answers, as `components/headers`. */
const HEADERS = {
  'Retry-After': RETRY_AFTER,
  'X-Correlation-Id': CORRELATION_ID,
  ...RATE_LIMIT_HEADERS,
};

/** Answers sent before an app's key is read: no quota headers. */
const BEFORE_THE_KEY = new Set(['401', '414', '431']);

const pascalCase = (id: string) =>
  id
    .split(/[^A-Za-z0-9]+/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

/** The family serving `path` (the longest prefix that matches), if any. */
export function familyOfPath(path: string): ApiFamily | undefined {
  let found: { family: ApiFamily; length: number } | undefined;
  for (const family of allFamilies) {
    for (const prefix of family.prefixes) {
      if (
        (path === prefix || path.startsWith(`${prefix}/`)) &&
        prefix.length > (found?.length ?? 0)
      )
        found = { family, length: prefix.length };
    }
  }
  return found?.family;
}

function guardedByApiKey(operation: Operation): boolean {
  return (operation.security ?? []).some((requirement) =>
    Object.keys(requirement).some(
      (name) => securitySchemes[name as keyof typeof securitySchemes]?.type === 'apiKey',
    ),
  );
}

/** The statuses the family's framework can answer for this operation. */
export function frameworkStatuses(
  family: ApiFamily,
  method: string,
  operation: Operation,
): number[] {
  const statuses = new Set([400, family.validationStatus, 500, 503, 504]);
  if ((operation.parameters ?? []).some((p) => p.in === 'path')) statuses.add(414);
  if (BODY_METHODS.has(method)) {
    statuses.add(413);
    statuses.add(415);
  }
  if ((operation.security ?? []).length > 0) statuses.add(401);
  if (guardedByApiKey(operation)) statuses.add(429);
  return [...statuses].sort((a, b) => a - b);
}

/** Completes every operation of the document in place (see the module comment) and returns it. */
export function completeDocument<T extends Json>(document: T): T {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  const operationIds: Array<[string, string]> = [];
  const sharedResponses: Record<string, Json> = {};
  for (const [path, item] of Object.entries(paths)) {
    const family = familyOfPath(path);
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      operation.operationId ??= operationIdOf(family, method, path);
      operationIds.push([operation.operationId, `${method.toUpperCase()} ${path}`]);
      const keyed = guardedByApiKey(operation);
      // A route serving `/x` and `/x.{format}` with one parameter schema lists `format` on both;
      // a path parameter is one the path names.
      if (operation.parameters)
        operation.parameters = operation.parameters.filter(
          (p) => p.in !== 'path' || path.includes(`{${p.name}}`),
        );
      // Rules between parameters (parameter-dependencies.ts) belong to the parameter, not its schema.
      for (const parameter of operation.parameters ?? []) {
        if (parameter.schema && DEPENDENCIES in parameter.schema) {
          parameter[DEPENDENCIES] = parameter.schema[DEPENDENCIES];
          delete parameter.schema[DEPENDENCIES];
        }
      }
      if (operation[OPTIONAL_BODY] === true && operation.requestBody)
        operation.requestBody.required = false;
      delete operation[OPTIONAL_BODY];
      const responses = (operation.responses ??= {});
      /** The headers a response of this status declares (see the module comment). */
      const withHeaders = (status: string, response: Json): Json => {
        const headers = { ...(response.headers as Json | undefined) };
        const declare = (name: string) => {
          headers[name] = { $ref: `#/components/headers/${name}` };
        };
        if (status === '429' || status === '503') declare('Retry-After');
        if (keyed && !BEFORE_THE_KEY.has(status))
          for (const name of Object.keys(RATE_LIMIT_HEADERS)) declare(name);
        if (status !== '431') declare('X-Correlation-Id');
        return { ...response, headers };
      };
      // The routes' own answers, declared inline (their descriptions say what each means there).
      for (const [status, response] of Object.entries(responses)) {
        if (response.description === 'Default Response') {
          response.description = STATUS_DESCRIPTIONS[Number(status)] ?? 'OK';
        }
        responses[status] = withHeaders(status, response);
      }
      // The family framework's answers, the same for every operation of the family (with the quota
      // headers or without): each said once, under `components/responses`.
      const shared = (name: string, status: number, schema: Json) => {
        sharedResponses[name] ??= withHeaders(String(status), {
          description: STATUS_DESCRIPTIONS[status] ?? 'Error',
          content: { 'application/json': { schema } },
        });
        return { $ref: `#/components/responses/${name}` };
      };
      if (family) {
        for (const status of frameworkStatuses(family, method, operation)) {
          responses[String(status)] ??= shared(
            `${pascalCase(family.id)}${keyed ? 'Keyed' : ''}Error${status}`,
            status,
            family.errorSchema(status),
          );
        }
      }
      responses['431'] ??= shared('RequestHeadersTooLarge', 431, SERVER_ERROR);
      operation.responses = Object.fromEntries(
        Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)),
      );
    }
  }
  assertUniqueOperationIds(operationIds);
  (document as Json).servers = SERVERS;
  const components = ((document as Json).components ??= {}) as Json;
  components.headers = { ...(components.headers as Json | undefined), ...HEADERS };
  components.responses = Object.fromEntries(
    Object.entries({ ...(components.responses as Json | undefined), ...sharedResponses }).sort(
      ([a], [b]) => a.localeCompare(b),
    ),
  );
  return hoistNamedSchemas(document);
}
