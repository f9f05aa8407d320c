import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import { AppError } from '../errors/index.js';
import type { Logger } from '../logger/create-logger.js';
import { LogThrottle } from '../logger/throttle.js';
import { CORRELATION_ID_HEADER, currentCorrelationId } from '../logger/correlation.js';
import {
  SERVICE_TOKEN_METADATA,
  UNNAMED_CALLER,
  currentServiceName,
  serviceKeyring,
  serviceOfPath,
  serviceTokenFor,
} from './service-auth.js';
import type { ServiceKeyring } from './service-token.js';
import { propagatedDeadline } from './call-context.js';
import { rpcAttributes, rpcClientDuration } from './rpc-metrics.js';
import { fromGrpcError } from './status.js';

/** The shape of a ts-proto (`outputServices=grpc-js`) client class. */
export type GrpcClientConstructor<C> = new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: Partial<grpc.ClientOptions>,
) => C;

export interface CreateGrpcClientOptions {
  /** Deadline given to every call that sets none. Default 5 s. */
  deadlineMs?: number;
  /**
   * Calls that failed (unavailable, deadline, a peer's fault) are logged at warn with method, code
   * and duration, at most once a second per method and code; a peer's domain answers (not found,
   * refused) at debug.
   */
  logger?: Logger;
  /** Default: insecure (in-cluster traffic; mTLS, when wanted, is the mesh's job). */
  credentials?: grpc.ChannelCredentials;
  channelOptions?: Partial<grpc.ClientOptions>;
  /**
   * The service this client speaks for. Default: the service being composed when the client is
   * made (the runner sets it), else the one running the call, else `unnamed`.
   */
  caller?: string;
  /** The key service tokens are signed with. Default: the process's. */
  serviceKeyring?: ServiceKeyring;
  /**
   * Calls through {@link callUnary} this client keeps in flight at most; one more fails at once
   * `unavailable` with reason {@link OVERLOADED_REASON} and `retryAfterMs` (load shedding: the
   * caller refuses its request with Retry-After, 429 at the edge, instead of queueing work its own
   * caller will have given up on). Default: no bound.
   */
  maxInFlight?: number;
}

/**
 * How long a call refused by `maxInFlight` suggests waiting before trying again: 1 to 3 s at
 * random, so that refused clients do not all come back in the same second.
 */
export const shedRetryAfterMs = (): number => 1_000 + Math.floor(Math.random() * 3) * 1_000;

interface InFlight {
  readonly limit: number;
  count: number;
}
const inFlightOf = new WeakMap<object, InFlight>();

/**
 * The reason (`details.reason`) of a request refused for load before any work was done: the
 * platform is up but busy, so a client is told to slow down (HTTP 429 with Retry-After), not that
 * something is down (503). The kind stays `unavailable`: such a refusal says nothing about the
 * request, so it is never recorded as an Idempotency-Key's outcome and a retry runs again.
 */
export const OVERLOADED_REASON = 'overloaded';

const inFlightRefusal = () =>
  new AppError('unavailable', 'too many calls in flight to a backend; retry shortly', {
    details: { reason: OVERLOADED_REASON, retryAfterMs: shedRetryAfterMs() },
  });

/**
 * Throws what a call of `client` would be refused with now that its `maxInFlight` bound is
 * reached (nothing otherwise): a caller can refuse a request before doing any work of its own for
 * it, such as checking its credentials, when the back end it needs has no room anyway.
 */
export function assertInFlightRoom(client: object): void {
  const bound = inFlightOf.get(client);
  if (bound !== undefined && bound.count >= bound.limit) throw inFlightRefusal();
}

/**
 * The HTTP/2 receive window of a client's connection and streams. HTTP/2's default, 65,535 bytes,
 * is all a server may send before the client's event loop turns to acknowledge it: a busy caller
 * receiving search pages of ~30 kB then gets about two answers per turn, and throughput collapses
 * while both processes idle (bench/discovery: uncached searches at 500 requests/s fell behind with
 * a third of each process idle). 16 MiB leaves backpressure to the server's memory, as gRPC's other
 * implementations do with their BDP-probed windows.
 */
export const FLOW_CONTROL_WINDOW_BYTES = 16 * 1024 * 1024;

/**
 * The grpc-js target of a configured address:
 * - `host:port`: one name, resolved by DNS (every address it resolves to is used, see below);
 * - `dns:///name:port`, `ipv4:...`, `ipv6:...`, `unix:...`: passed as they are;
 * - `ip:port, ip:port`: several replicas by address (the local stack's replicas), as one
 *   `ipv4:`/`ipv6:` target, so one client spreads its calls over all of them.
 * A list that names hosts is refused: DNS does the listing for names (a headless Service).
 */
export function grpcTarget(address: string): string {
  const trimmed = address.trim();
  if (/^(dns|ipv4|ipv6|unix|unix-abstract):/.test(trimmed)) return trimmed;
  const parts = trimmed
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  if (parts.length === 0) throw new Error(`no gRPC address in "${address}"`);
  if (parts.length === 1) return parts[0]!;
  if (parts.every((part) => /^\d{1,3}(\.\d{1,3}){3}:\d{1,5}$/.test(part)))
    return `ipv4:${parts.join(',')}`;
  if (parts.every((part) => /^\[[0-9a-f:]+\]:\d{1,5}$/i.test(part)))
    return `ipv6:${parts.join(',')}`;
  throw new Error(
    `gRPC address list "${address}" must be IP literals of one family (ip:port, ip:port); for host names use one name that resolves to every replica (a headless Service)`,
  );
}

/**
 * Client-side balancing: `round_robin` over every address the target resolves to, instead of
 * grpc-js' default `pick_first` (one connection to the first address). Behind a headless Service
 * the name resolves to every ready pod, so calls spread over all replicas; servers cap connection
 * age (server.ts, `connectionAgeOptions`) so clients re-resolve and find replicas added later.
 */
const ROUND_ROBIN_SERVICE_CONFIG = JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] });

/**
 * A client whose every call carries a deadline (every call has one), the current correlation id
 * and a service token naming the calling service (service-auth.ts). Trace context is added by the
 * gRPC instrumentation, not here.
 */
export function createGrpcClient<C>(
  Client: GrpcClientConstructor<C>,
  address: string,
  options: CreateGrpcClientOptions = {},
): C {
  const deadlineMs = options.deadlineMs ?? 5_000;
  const { logger } = options;
  // Resolved now: a production process without a key fails at start, not at its first call.
  const keyring = options.serviceKeyring ?? serviceKeyring();
  const callerAtCreation = options.caller ?? currentServiceName();

  const durations = rpcClientDuration();
  const throttle = new LogThrottle(FAILURE_LOG_INTERVAL_MS);
  const interceptor: grpc.Interceptor = (callOptions, nextCall) => {
    // Never past the deadline of the call being served, if any (call-context.ts).
    const own =
      callOptions.deadline === undefined ? Date.now() + deadlineMs : toMs(callOptions.deadline);
    const withDeadline = { ...callOptions, deadline: propagatedDeadline(own) };
    const path = callOptions.method_definition.path;
    const started = performance.now();
    // Read now: `start` may run after the caller's async context has moved on.
    const correlationId = currentCorrelationId();
    const caller = callerAtCreation ?? currentServiceName() ?? UNNAMED_CALLER;

    return new grpc.InterceptingCall(nextCall(withDeadline), {
      start(metadata, listener, next) {
        if (correlationId !== undefined && metadata.get(CORRELATION_ID_HEADER).length === 0) {
          metadata.set(CORRELATION_ID_HEADER, correlationId);
        }
        metadata.set(SERVICE_TOKEN_METADATA, serviceTokenFor(keyring, caller, serviceOfPath(path)));
        next(metadata, {
          onReceiveStatus(status, nextStatus) {
            durations.record(
              (performance.now() - started) / 1000,
              rpcAttributes(path, status.code),
            );
            if (status.code !== grpc.status.OK && logger !== undefined) {
              logFailedCall(logger, throttle, path, status.code, started);
            }
            nextStatus(status);
          },
        });
      },
    });
  };

  const client = new Client(
    grpcTarget(address),
    options.credentials ?? grpc.credentials.createInsecure(),
    {
      'grpc-node.flow_control_window': FLOW_CONTROL_WINDOW_BYTES,
      'grpc.service_config': ROUND_ROBIN_SERVICE_CONFIG,
      // A peer that restarted (a rolling update) is reconnected within 2 s, not after gRPC's default
      // backoff of up to two minutes: these are a handful of in-cluster peers, not a crowd.
      'grpc.initial_reconnect_backoff_ms': 250,
      'grpc.max_reconnect_backoff_ms': 2_000,
      ...options.channelOptions,
      interceptors: [...(options.channelOptions?.interceptors ?? []), interceptor],
    },
  );
  if (options.maxInFlight !== undefined) {
    if (!Number.isInteger(options.maxInFlight) || options.maxInFlight < 1)
      throw new RangeError('createGrpcClient: maxInFlight must be a positive integer');
    inFlightOf.set(client as object, { limit: options.maxInFlight, count: 0 });
  }
  return client;
}

/** A warning per method and code at most this often; the ones between are counted. */
const FAILURE_LOG_INTERVAL_MS = 1_000;

/**
 * Codes that say the call itself failed (the peer could not be reached, did not answer in time,
 * or broke), as opposed to an answer of the peer's domain (not found, sold out, refused, already
 * done), which its caller turns into its own answer and which is only logged at debug. Every
 * failed call is counted by code in `rpc_client_call_duration_seconds` either way.
 */
function isCallFailure(code: grpc.status): boolean {
  return (
    code === grpc.status.UNAVAILABLE ||
    code === grpc.status.DEADLINE_EXCEEDED ||
    code === grpc.status.INTERNAL ||
    code === grpc.status.UNKNOWN ||
    code === grpc.status.DATA_LOSS ||
    code === grpc.status.UNIMPLEMENTED
  );
}

/**
 * A call failure is logged at warn, at most once a second per method and code with the number
 * left out since (a burst shed by a peer would otherwise write a line per refused call on the
 * process that is busiest then); a domain answer at debug.
 */
function logFailedCall(
  logger: Logger,
  throttle: LogThrottle,
  path: string,
  code: grpc.status,
  started: number,
): void {
  const failure = isCallFailure(code);
  if (!failure && !logger.isLevelEnabled('debug')) return;
  const fields = {
    grpc_method: path,
    grpc_code: grpc.status[code],
    duration_ms: Math.round((performance.now() - started) * 100) / 100,
  };
  if (!failure) {
    logger.debug(fields, 'grpc call answered with an error status');
    return;
  }
  const suppressed = throttle.admit(`${path} ${code}`);
  if (suppressed === undefined) return;
  logger.warn(
    suppressed > 0 ? { ...fields, suppressed_since_last: suppressed } : fields,
    'grpc call failed',
  );
}

function toMs(deadline: grpc.Deadline): number {
  return deadline instanceof Date ? deadline.getTime() : deadline;
}

type UnaryCallback<Res> = (error: grpc.ServiceError | null, response: Res) => void;

// ts-proto declares three overloads per unary method; conditional types see the last, widest one.
type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: UnaryCallback<Res>,
) => grpc.ClientUnaryCall;

/** The names of a client's unary methods. */
export type UnaryMethodName<C> = {
  [
    K in keyof C // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any request/response matches
  ]-?: C[K] extends UnaryMethod<any, any> ? K : never;
}[keyof C] &
  string;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the response is irrelevant here
type RequestOf<F> = F extends UnaryMethod<infer Req, any> ? Req : never;
type ResponseOf<F> = F extends (
  request: never,
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: UnaryCallback<infer Res>,
) => grpc.ClientUnaryCall
  ? Res
  : never;

export interface CallUnaryOptions {
  /** Overrides the client's default deadline for this call. */
  deadlineMs?: number;
  /**
   * Wait, within the deadline, for a connection that is down to come back instead of failing at
   * once with `unavailable` (gRPC's wait-for-ready).
   */
  waitForReady?: boolean;
  metadata?: grpc.Metadata;
}

/**
 * Calls a unary method and resolves with its response. A failure rejects with the
 * {@link fromGrpcError} application error (kind from the status code, details parsed), so adapters
 * deal in kinds rather than status codes.
 */
export function callUnary<C, M extends UnaryMethodName<C>>(
  client: C,
  method: M,
  request: RequestOf<C[M]>,
  options: CallUnaryOptions = {},
): Promise<ResponseOf<C[M]>> {
  const fn = client[method] as unknown as UnaryMethod<RequestOf<C[M]>, ResponseOf<C[M]>>;
  const callOptions: Partial<grpc.CallOptions> =
    options.deadlineMs === undefined ? {} : { deadline: Date.now() + options.deadlineMs };
  // grpc-js reads wait-for-ready from the metadata's options, not from the call options (where it
  // would be ignored without a word).
  const metadata = options.metadata ?? new grpc.Metadata();
  if (options.waitForReady) metadata.setOptions({ ...metadata.getOptions(), waitForReady: true });
  const bound = inFlightOf.get(client as object);
  if (bound !== undefined) {
    if (bound.count >= bound.limit) return Promise.reject(inFlightRefusal());
    bound.count += 1;
  }
  const settled = new Promise<ResponseOf<C[M]>>((resolve, reject) => {
    fn.call(client, request, metadata, callOptions, (error, response) => {
      if (error) reject(fromGrpcError(error));
      else resolve(response);
    });
  });
  if (bound === undefined) return settled;
  return settled.finally(() => {
    bound.count -= 1;
  });
}
