import type { AddressInfo } from 'node:net';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { httpStatusForKind, isAppErrorLike } from '../errors/index.js';
import type { Logger } from '../logger/create-logger.js';
import {
  CORRELATION_ID_HEADER,
  isValidCorrelationId,
  newCorrelationId,
  runWithCorrelationId,
} from '../logger/correlation.js';
import { metrics } from '../metrics/registry.js';
import { cachedSerializerFactory } from './serializer-cache.js';
import { maskSecretQueryParams } from './mask-secrets.js';

export { maskSecretQueryParams };

/** Each dependency's state; `/readyz` answers 200 only when every value is true. */
export type ReadinessCheck = () => Promise<Record<string, boolean>> | Record<string, boolean>;

export interface CreateHttpServerOptions {
  logger: Logger;
  readiness?: ReadinessCheck;
  /** Bytes; fastify's default is 1 MiB. */
  bodyLimit?: number;
  /** Passed to fastify: `true` behind a trusted ingress, so `request.ip` is the client's. */
  trustProxy?: boolean | string | string[];
  /** Whole-request budget; guards against slow clients holding sockets. Default 30 s. */
  requestTimeoutMs?: number;
  /**
   * Idle keep-alive; longer than common load-balancer idle timeouts (60 s) so the balancer, not
   * this server, closes idle connections and never reuses one that is being closed. Default 65 s.
   */
  keepAliveTimeoutMs?: number;
  /** How long `/readyz` waits for the readiness check before answering 503. Default 2 s. */
  readinessTimeoutMs?: number;
  /** The `service` label of this server's request durations (`http_server_request_duration_seconds`). */
  serviceName?: string;
}

/**
 * Answers a request error fastify raises in its router, before any route or plugin scope is chosen
 * (so no scope's error handler sees it): a path parameter longer than the router's limit (414) or
 * a URL that does not decode (400). `error.statusCode` and `error.message` are set for clients.
 */
export type FrameworkErrorHandler = (
  error: FastifyError & { statusCode: number },
  request: FastifyRequest,
  reply: FastifyReply,
) => unknown;

interface PrefixedHandler {
  prefix: string;
  handler: FrameworkErrorHandler;
}

/** The framework error handlers of each server, by its node server (shared by every scope). */
const frameworkHandlers = new WeakMap<object, PrefixedHandler[]>();

/**
 * Makes `handler` answer the framework errors (see {@link FrameworkErrorHandler}) of every path
 * under `scope.prefix`, e.g. so that an API family answers them in its own error body. The longest
 * matching prefix wins; paths under no registered prefix get the server's default error body.
 */
export function setFrameworkErrorHandler(
  scope: FastifyInstance,
  handler: FrameworkErrorHandler,
): void {
  const handlers = frameworkHandlers.get(scope.server);
  if (!handlers) throw new Error('setFrameworkErrorHandler: not a server of createHttpServer');
  if (!scope.prefix) throw new Error('setFrameworkErrorHandler: the scope has no prefix');
  handlers.push({ prefix: scope.prefix, handler });
  handlers.sort((a, b) => b.prefix.length - a.prefix.length);
}

function serializeRequest(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: maskSecretQueryParams(request.url),
    host: request.host,
    remoteAddress: request.ip,
  };
}

/**
 * A fastify 5 instance with what every Marquee HTTP server shares: `/healthz`,
 * `/readyz`, `X-Correlation-Id` handling, a default error handler that never answers with a stack
 * trace, and server timeouts. Routes and API-family error bodies are the caller's plugins.
 */
export function createHttpServer(options: CreateHttpServerOptions): FastifyInstance {
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const app = Fastify({
    // fastify's own `req` serializer logs the raw URL; this one masks credentials in the query.
    // Typed as fastify's base logger so the instance has fastify's default generics, which is what
    // route plugins are written against.
    loggerInstance: options.logger.child(
      {},
      { serializers: { req: serializeRequest } },
    ) as FastifyBaseLogger,
    bodyLimit: options.bodyLimit ?? 1_048_576,
    trustProxy: options.trustProxy ?? false,
    requestTimeout,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 65_000,
    // The request id *is* the correlation id, so fastify's per-request log lines carry it as reqId.
    requestIdHeader: false,
    genReqId: (request) => {
      const incoming = request.headers[CORRELATION_ID_HEADER];
      return isValidCorrelationId(incoming) ? incoming : newCorrelationId();
    },
    return503OnClosing: true,
    // A schema means what it says: `additionalProperties: false` rejects unknown properties
    // instead of silently dropping them (fastify's default), so clients learn about their typos.
    // `allErrors` lets an API family report every invalid property at once.
    ajv: { customOptions: { removeAdditional: false, allErrors: true } },
    // Router errors (no scope chosen yet): see answerFrameworkError.
    frameworkErrors: answerFrameworkError,
    // One compiled serializer per response schema in the process, not per route and server.
    schemaController: { compilersFactory: { buildSerializer: cachedSerializerFactory } },
  });
  frameworkHandlers.set(app.server, []);

  // Node refuses a headersTimeout above requestTimeout; keep headers well inside the budget.
  app.server.headersTimeout = Math.min(requestTimeout, 10_000);

  app.addHook('onRequest', (request, reply, done) => {
    void reply.header(CORRELATION_ID_HEADER, request.id);
    // The rest of the request (hooks, body parsing, handler, error handler) runs from `done`, so
    // it inherits this AsyncLocalStorage scope; fastify 5 carries it across body parsing itself
    // (checked by the real-socket test with a streamed body).
    runWithCorrelationId(request.id, done);
  });

  // Request durations under the OpenTelemetry HTTP convention, labelled with the route template
  // (never the raw path: one series per route, not per URL). A request no route matched has no
  // `http.route`.
  const durations = httpServerDuration();
  const service = options.serviceName === undefined ? {} : { service: options.serviceName };
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url;
    durations.record(reply.elapsedTime / 1000, {
      ...service,
      'http.request.method': request.method,
      'http.response.status_code': reply.statusCode,
      ...(route === undefined ? {} : { 'http.route': route }),
    });
    done();
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { status, kind, message } = describeError(error);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ kind, status }, 'request rejected');
    return reply.status(status).send({
      error: { kind, message, correlationId: request.id },
    });
  });

  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({
      error: { kind: 'not_found', message: 'no such route', correlationId: request.id },
    }),
  );

  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));

  app.get('/readyz', { logLevel: 'warn' }, async (request, reply) => {
    const checks = await runReadiness(
      options.readiness,
      options.readinessTimeoutMs ?? 2_000,
      request,
    );
    const ready = checks !== undefined && Object.values(checks).every(Boolean);
    return reply
      .status(ready ? 200 : 503)
      .send({ status: ready ? 'ready' : 'not_ready', checks: checks ?? {} });
  });

  return app;
}

async function runReadiness(
  check: ReadinessCheck | undefined,
  timeoutMs: number,
  request: FastifyRequest,
): Promise<Record<string, boolean> | undefined> {
  if (check === undefined) return {};
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      Promise.resolve().then(check),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => {
          request.log.warn({ timeoutMs }, 'readiness check timed out');
          resolve(undefined);
        }, timeoutMs);
      }),
    ]);
  } catch (error) {
    request.log.warn({ err: error }, 'readiness check failed');
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

interface ErrorDescription {
  status: number;
  kind: string;
  message: string;
}

function describeError(error: FastifyError): ErrorDescription {
  if (isAppErrorLike(error)) {
    const status = httpStatusForKind(error.kind);
    return status >= 500
      ? { status, kind: error.kind, message: genericMessage(status) }
      : { status, kind: error.kind, message: error.message };
  }
  if (error.validation !== undefined) {
    return { status: 400, kind: 'invalid_argument', message: error.message };
  }
  // fastify's own client errors (bad JSON, body too large, unsupported media type) carry a 4xx
  // statusCode and a message written for clients.
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return {
      status,
      kind: status === 413 ? 'resource_exhausted' : 'invalid_argument',
      message: error.message,
    };
  }
  return { status: 500, kind: 'internal', message: genericMessage(500) };
}

/**
 * fastify's `frameworkErrors`: the handler registered for the path's prefix, else the server's
 * default body. Without it, fastify answers router errors with a body of its own.
 */
function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): unknown {
  void reply.header(CORRELATION_ID_HEADER, request.id);
  const described = describeFrameworkError(
    error,
    request.server.initialConfig.maxParamLength ?? 100,
  );
  const path = request.url.split('?')[0] ?? request.url;
  const match = (frameworkHandlers.get(request.server.server) ?? []).find(
    ({ prefix }) => path === prefix || path.startsWith(`${prefix}/`),
  );
  request.log.info({ code: error.code, status: described.statusCode }, 'request rejected');
  if (match) return match.handler(described, request, reply);
  const kind = described.statusCode >= 500 ? 'internal' : 'invalid_argument';
  return reply.status(described.statusCode).send({
    error: { kind, message: described.message, correlationId: request.id },
  });
}

/** A router error with a status and a message for clients (no path quoted back). */
function describeFrameworkError(
  error: FastifyError,
  maxParamLength: number,
): FastifyError & { statusCode: number } {
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const statusCode = tooLong ? 414 : (error.statusCode ?? 400);
  const message = tooLong
    ? `A path segment is longer than ${maxParamLength} characters`
    : error.code === 'FST_ERR_BAD_URL'
      ? 'The URL is not valid (a path segment does not decode)'
      : statusCode >= 500
        ? genericMessage(500)
        : error.message;
  return Object.assign(new Error(message), {
    name: error.name,
    code: error.code,
    statusCode,
  }) as FastifyError & { statusCode: number };
}

function genericMessage(status: number): string {
  return status === 503
    ? 'service unavailable'
    : status === 504
      ? 'deadline exceeded'
      : 'internal error';
}

/** Listens and returns the bound port (useful with port 0). */
export async function listenHttp(
  app: FastifyInstance,
  options: { host: string; port: number },
): Promise<number> {
  await app.listen({ host: options.host, port: options.port });
  return (app.server.address() as AddressInfo).port;
}

function httpServerDuration() {
  return metrics.histogram('http_server_request_duration_seconds', {
    description: 'Duration of HTTP requests this process served',
    unit: 's',
  });
}
