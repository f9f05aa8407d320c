import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { AppError } from '../errors/index.js';
import type { Logger } from '../logger/create-logger.js';
import {
  CORRELATION_ID_HEADER,
  isValidCorrelationId,
  newCorrelationId,
  runWithCorrelationId,
} from '../logger/correlation.js';
import {
  callersByPath,
  serviceAuthInterceptor,
  serviceKeyring,
  type RpcCallers,
} from './service-auth.js';
import type { ServiceKeyring } from './service-token.js';
import { runInIncomingCall, type IncomingCall } from './call-context.js';
import { addReflection, isReflectionPath, reflectionByDefault } from './reflection.js';
import { rpcAttributes, rpcServerDuration } from './rpc-metrics.js';
import { toGrpcError } from './status.js';

export interface GrpcServiceRegistration {
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
}

export interface CreateGrpcServerOptions {
  logger: Logger;
  services: GrpcServiceRegistration[];
  /**
   * Who may call each RPC (a ServiceDefinition's `callers`, service-auth.ts). An RPC it does not
   * name is refused to every caller: without it, every RPC is.
   */
  callers?: RpcCallers;
  /**
   * Names reported by `grpc.health.v1` besides the overall `''`. Default: the fully-qualified name
   * of each registered service (`marquee.cart.v1.CartService`), as Kubernetes' gRPC probe asks.
   */
  healthServiceNames?: string[];
  /** Extra grpc-js server options (message sizes, keepalive). */
  serverOptions?: grpc.ServerOptions;
  /** The key service tokens are checked with. Default: the process's ({@link serviceKeyring}). */
  serviceKeyring?: ServiceKeyring;
  /**
   * Serve gRPC server reflection for the registered services and health (reflection.ts), open
   * without a service token like health checks. Default: `GRPC_REFLECTION` when set, else on
   * outside `NODE_ENV=production`.
   */
  reflection?: boolean;
}

/** The platform's default connection age limits ({@link connectionAgeOptions}). */
export const DEFAULT_MAX_CONNECTION_AGE_MS = 300_000;
export const DEFAULT_MAX_CONNECTION_AGE_GRACE_MS = 30_000;

/**
 * grpc-js server options that close each client connection after `maxMs` (GOAWAY, then `graceMs`
 * for calls in flight). A client holds one connection per address it resolved; without an age
 * limit it never re-resolves, so replicas added later (an HPA scale-up behind a headless Service)
 * get no calls from clients already running. With it, every client re-resolves at least once per
 * age and its round-robin balancer picks up the new addresses. `maxMs` 0: no limit.
 */
export function connectionAgeOptions(
  age: { maxMs: number; graceMs: number } = {
    maxMs: DEFAULT_MAX_CONNECTION_AGE_MS,
    graceMs: DEFAULT_MAX_CONNECTION_AGE_GRACE_MS,
  },
): grpc.ServerOptions {
  if (age.maxMs === 0) return {};
  return {
    'grpc.max_connection_age_ms': age.maxMs,
    'grpc.max_connection_age_grace_ms': age.graceMs,
  };
}

interface ServerState {
  health: HealthImplementation;
  healthNames: string[];
}

// The health implementation belongs to the server it was added to; kept beside it rather than on it
// so that callers keep a plain `grpc.Server`.
const states = new WeakMap<grpc.Server, ServerState>();

const HEALTH_PATH_PREFIX = '/grpc.health.v1.Health/';

/**
 * A grpc-js server with `grpc.health.v1`, server reflection where enabled, and the platform's
 * interceptors: every call but health checks and reflection must carry a valid service token of a
 * service the RPC declares as its caller (`callers`, service-auth.ts); the correlation id from `x-correlation-id`
 * metadata (generated when absent) is active in handlers, and every call is logged with its
 * method, status code and duration. Handlers are wrapped so that a thrown or rejected error, or one
 * passed to the callback, reaches the client with the right status code (see
 * {@link toGrpcError}); unexpected ones are logged in full and answered INTERNAL.
 */
export function createGrpcServer(options: CreateGrpcServerOptions): grpc.Server {
  const { logger } = options;
  const reflection = options.reflection ?? reflectionByDefault();
  // Resolved now: a production process without a key fails here, at start, not at its first call.
  const auth: grpc.ServerInterceptor[] = [];
  if (options.services.length > 0) {
    const { byPath, undeclared } = callersByPath(
      options.services.map(({ definition }) => definition),
      options.callers ?? {},
    );
    if (undeclared.length > 0) {
      logger.warn(
        { grpc_methods: undeclared },
        'RPCs without declared callers: refused to every caller',
      );
    }
    const checkCaller = serviceAuthInterceptor(options.serviceKeyring ?? serviceKeyring(), byPath);
    // Reflection tools (grpcurl, grpcui) carry no service token; it is open where it is served.
    auth.push((method, call) =>
      reflection && isReflectionPath(method.path)
        ? new grpc.ServerInterceptingCall(call)
        : checkCaller(method, call),
    );
  }
  const server = new grpc.Server({
    ...options.serverOptions,
    // Outermost last: a refusal of the authentication interceptor passes through the logging one.
    interceptors: [
      ...(options.serverOptions?.interceptors ?? []),
      callInterceptor(logger),
      ...auth,
    ],
  });

  const names: string[] = [];
  for (const { definition, implementation } of options.services) {
    server.addService(definition, wrapImplementation(definition, implementation, logger));
    const name = serviceNameOf(definition);
    if (name !== undefined) names.push(name);
  }
  const healthNames = ['', ...(options.healthServiceNames ?? names)];
  const health = new HealthImplementation(
    Object.fromEntries(healthNames.map((name) => [name, 'NOT_SERVING' as const])),
  );
  health.addToServer(server);
  states.set(server, { health, healthNames });
  if (reflection) addReflection(server, { services: names, logger });
  return server;
}

/** `/marquee.cart.v1.CartService/Reserve` → `marquee.cart.v1.CartService`. */
function serviceNameOf(definition: grpc.ServiceDefinition): string | undefined {
  const first = Object.values(definition)[0];
  return first?.path.split('/')[1];
}

function callInterceptor(logger: Logger): grpc.ServerInterceptor {
  const durations = rpcServerDuration();
  return (method, call) => {
    const started = performance.now();
    // Probes and reflection tools poll: their calls are logged at debug only.
    const isHealth = method.path.startsWith(HEALTH_PATH_PREFIX) || isReflectionPath(method.path);
    let correlationId: string | undefined;
    let finished = false;
    const inContext = (next: () => void) =>
      runWithCorrelationId(correlationId ?? newCorrelationId(), next);

    const listener = new grpc.ServerListenerBuilder()
      .withOnReceiveMetadata((metadata, next) => {
        const [incoming] = metadata.get(CORRELATION_ID_HEADER);
        correlationId = isValidCorrelationId(incoming) ? incoming : newCorrelationId();
        next(metadata);
      })
      // grpc-js invokes the handler synchronously from these two events (half-close for unary and
      // server-streaming calls, message for streaming requests), so running them inside the
      // AsyncLocalStorage scope puts the whole handler, awaits included, under the correlation id.
      .withOnReceiveMessage((message, next) => inContext(() => next(message)))
      .withOnReceiveHalfClose((next) => inContext(next))
      .withOnCancel(() => {
        if (finished) return;
        finished = true;
        durations.record(
          (performance.now() - started) / 1000,
          rpcAttributes(method.path, grpc.status.CANCELLED),
        );
        logger.info(
          {
            grpc_method: method.path,
            grpc_code: 'CANCELLED',
            duration_ms: elapsed(started),
            correlation_id: correlationId,
          },
          'grpc call cancelled by the client',
        );
      })
      .build();

    const responder = new grpc.ResponderBuilder()
      .withStart((next) => next(listener))
      .withSendStatus((status, next) => {
        if (!finished) {
          finished = true;
          const code = status.code ?? grpc.status.OK;
          durations.record((performance.now() - started) / 1000, rpcAttributes(method.path, code));
          const fields = {
            grpc_method: method.path,
            grpc_code: grpc.status[code],
            duration_ms: elapsed(started),
            correlation_id: correlationId,
          };
          if (isHealth) logger.debug(fields, 'grpc call');
          else if (isServerFault(code)) logger.error(fields, 'grpc call');
          else logger.info(fields, 'grpc call');
        }
        next(status);
      })
      .build();

    return new grpc.ServerInterceptingCall(call, responder);
  };
}

function isServerFault(code: grpc.status): boolean {
  return (
    code === grpc.status.INTERNAL ||
    code === grpc.status.UNKNOWN ||
    code === grpc.status.DATA_LOSS ||
    code === grpc.status.UNIMPLEMENTED
  );
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}

type AnyCallback = (
  error: unknown,
  value?: unknown,
  trailer?: grpc.Metadata,
  flags?: number,
) => void;

function wrapImplementation(
  definition: grpc.ServiceDefinition,
  implementation: grpc.UntypedServiceImplementation,
  logger: Logger,
): grpc.UntypedServiceImplementation {
  const wrapped: grpc.UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(definition)) {
    // ts-proto names implementation keys in camelCase; grpc-js looks up both spellings.
    const key = name in implementation ? name : method.originalName;
    const handler = key === undefined ? undefined : implementation[key];
    if (handler === undefined) continue;

    const fail = (error: unknown) => {
      const status = toGrpcError(error);
      if (status.code === grpc.status.INTERNAL) {
        logger.error({ err: error, grpc_method: method.path }, 'grpc handler failed');
      }
      return status;
    };

    if (!method.responseStream) {
      // Unary and client-streaming: the answer goes through the callback.
      wrapped[name] = ((call: grpc.ServerUnaryCall<unknown, unknown>, callback: AnyCallback) => {
        let answered = false;
        const respond: AnyCallback = (error, value, trailer, flags) => {
          if (answered) return;
          answered = true;
          if (error) callback(fail(error));
          else callback(null, value, trailer, flags);
        };
        const incoming = incomingOf(call);
        // A call that waited in a queue past its deadline is not started: its caller has gone.
        if (incoming.cancelled()) {
          respond(new AppError('deadline_exceeded', 'the caller gave up before the call started'));
          return;
        }
        runInIncomingCall(incoming, () => {
          try {
            const result: unknown = (handler as (call: unknown, callback: AnyCallback) => unknown)(
              call,
              respond,
            );
            if (isPromiseLike(result)) result.then(undefined, (error: unknown) => respond(error));
          } catch (error) {
            respond(error);
          }
        });
      }) as grpc.UntypedHandleCall;
    } else {
      // Server-streaming and bidi: a failure ends the stream with its status.
      wrapped[name] = ((call: grpc.ServerWritableStream<unknown, unknown>) => {
        const end = (error: unknown) => call.emit('error', fail(error));
        try {
          const result: unknown = (handler as (call: unknown) => unknown)(call);
          if (isPromiseLike(result)) result.then(undefined, end);
        } catch (error) {
          end(error);
        }
      }) as grpc.UntypedHandleCall;
    }
  }
  return wrapped;
}

/** The deadline and cancellation of a call being served (call-context.ts). */
function incomingOf(call: grpc.ServerUnaryCall<unknown, unknown>): IncomingCall {
  const raw = call.getDeadline();
  const deadline =
    raw instanceof Date ? raw.getTime() : Number.isFinite(raw) ? raw : Number.POSITIVE_INFINITY;
  return {
    deadline,
    cancelled: () => call.cancelled || Date.now() >= deadline,
  };
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Binds and starts the server; returns the bound port (port 0 picks an ephemeral one). Health turns
 * SERVING for `''` and every service only once the port is bound.
 */
export async function startGrpcServer(
  server: grpc.Server,
  options: { host: string; port: number; credentials?: grpc.ServerCredentials },
): Promise<number> {
  const host =
    options.host.includes(':') && !options.host.startsWith('[')
      ? `[${options.host}]`
      : options.host;
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(
      `${host}:${options.port}`,
      options.credentials ?? grpc.ServerCredentials.createInsecure(),
      (error, bound) => (error ? reject(error) : resolve(bound)),
    );
  });
  setHealth(server, 'SERVING');
  return port;
}

/**
 * Reports NOT_SERVING, lets in-flight calls finish for up to `timeoutMs`, then cancels what is left.
 */
export async function stopGrpcServer(server: grpc.Server, timeoutMs: number): Promise<void> {
  setHealth(server, 'NOT_SERVING');
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, timeoutMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function setHealth(server: grpc.Server, status: 'SERVING' | 'NOT_SERVING'): void {
  const state = states.get(server);
  if (state === undefined) return;
  for (const name of state.healthNames) state.health.setStatus(name, status);
}
