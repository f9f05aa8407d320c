import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { SERVICE_TOKEN_TTL_S, ServiceKeyring } from './service-token.js';

/**
 * Service-to-service authentication of gRPC (docs/architecture.md, "Service-to-service
 * authentication"). Every client made by {@link createGrpcClient} attaches a signed service token
 * naming the calling service; every server made by {@link createGrpcServer} refuses a call without
 * a valid one (UNAUTHENTICATED) and one from a service the RPC's declared callers
 * ({@link RpcCallers}) do not name, or of an RPC that declares none (PERMISSION_DENIED).
 * `grpc.health.v1` stays open for probes.
 * No service writes any code for it: the key comes from the process, the caller's name from the
 * runner that composes the service.
 */

/** Metadata carrying the caller's token. */
export const SERVICE_TOKEN_METADATA = 'x-marquee-service-token';
/**
 * Metadata the server sets, after verification, to the authenticated caller's name (whatever a
 * client sent under that key is replaced), for handlers that record who asked.
 */
export const SERVICE_CALLER_METADATA = 'x-marquee-caller';

/**
 * Who may call each RPC a process hosts, the one declaration of it (a ServiceDefinition's
 * `callers`): the gRPC service's full name (`marquee.cart.v1.CartService`), then the RPC's name as
 * in the `.proto` (`GetOrder`), then the names of the services allowed to call it
 * (`['edge-gateway']`). An RPC it does not list is refused to every caller (PERMISSION_DENIED): a
 * new RPC is closed until someone says who calls it. An empty list closes the RPC on purpose.
 */
export type RpcCallers = Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;

/** The name a client uses when it was made outside any service (tests, benchmarks, tools). */
export const UNNAMED_CALLER = 'unnamed';

const HEALTH_PATH_PREFIX = '/grpc.health.v1.Health/';

// --- the process's key --------------------------------------------------------------------------

interface ProcessAuth {
  keyring: ServiceKeyring | undefined;
  production: boolean;
}

let configured: ProcessAuth | undefined;
let fromEnvironment: { raw: string; keyring: ServiceKeyring } | undefined;
let generated: ServiceKeyring | undefined;

/** Thrown when a production process needs the key and has none. */
export class ServiceAuthKeyMissingError extends Error {
  constructor() {
    super(
      'production needs SERVICE_AUTH_KEY (or SERVICE_AUTH_KEY_FILE): the key Marquee services sign and check their gRPC calls with',
    );
    this.name = 'ServiceAuthKeyMissingError';
  }
}

/**
 * Sets the process's key from its validated configuration (`runService` does it): `key` is the
 * `SERVICE_AUTH_KEY` value (already read from `SERVICE_AUTH_KEY_FILE` when that was given). In
 * production a process without a key refuses to host an RPC or make a client.
 */
export function configureServiceAuth(options: { key: string | undefined; production: boolean }) {
  configured = {
    keyring: options.key === undefined ? undefined : ServiceKeyring.parse(options.key),
    production: options.production,
  };
}

/**
 * The key this process signs and checks service tokens with: the configured one, else
 * `SERVICE_AUTH_KEY` / `SERVICE_AUTH_KEY_FILE` from the environment, else — outside production
 * only — a key generated once for the process, which is all the embedded default needs (every
 * service in one process). Throws {@link ServiceAuthKeyMissingError} in production without one.
 */
export function serviceKeyring(): ServiceKeyring {
  if (configured?.keyring) return configured.keyring;
  const raw = keyFromEnvironment();
  if (raw !== undefined) {
    if (fromEnvironment?.raw !== raw) fromEnvironment = { raw, keyring: ServiceKeyring.parse(raw) };
    return fromEnvironment.keyring;
  }
  if (configured?.production ?? process.env.NODE_ENV === 'production') {
    throw new ServiceAuthKeyMissingError();
  }
  generated ??= ServiceKeyring.generate();
  return generated;
}

function keyFromEnvironment(): string | undefined {
  const direct = process.env.SERVICE_AUTH_KEY;
  if (direct) return direct.trim();
  const file = process.env.SERVICE_AUTH_KEY_FILE;
  return file ? readFileSync(file, 'utf8').trim() : undefined;
}

// --- the calling service ------------------------------------------------------------------------

const callingService = new AsyncLocalStorage<string>();

/**
 * Runs `fn` as service `name`: gRPC clients created inside it (and calls made from work it
 * starts) identify as that service. The service runner wraps a service's `compose` and `start`
 * in it, so a service never names itself.
 */
export function runAsService<T>(name: string, fn: () => T): T {
  return callingService.run(name, fn);
}

/** The service the current code runs as, if any. */
export function currentServiceName(): string | undefined {
  return callingService.getStore();
}

// --- client side --------------------------------------------------------------------------------

const minted = new WeakMap<ServiceKeyring, Map<string, { token: string; renewAtMs: number }>>();
/** A token is reused until a minute before it expires. */
const RENEW_BEFORE_EXPIRY_MS = 60_000;

/**
 * The token `caller` presents to `audience` (cached per keyring): a gRPC service name, or another
 * name a receiver checks, such as auth-gateway's `marquee.auth.http` for the edge's forwarded
 * client address.
 */
export function serviceTokenFor(keyring: ServiceKeyring, caller: string, audience: string): string {
  let cache = minted.get(keyring);
  if (!cache) minted.set(keyring, (cache = new Map()));
  const key = `${caller}\n${audience}`;
  const now = Date.now();
  const cached = cache.get(key);
  if (cached && cached.renewAtMs > now) return cached.token;
  const token = keyring.mint(caller, audience, now);
  if (cache.size > 1_000) cache.clear();
  cache.set(key, { token, renewAtMs: now + SERVICE_TOKEN_TTL_S * 1000 - RENEW_BEFORE_EXPIRY_MS });
  return token;
}

/** `/marquee.auth.v1.AuthService/CreateApp` → `marquee.auth.v1.AuthService`. */
export function serviceOfPath(path: string): string {
  return path.split('/')[1] ?? '';
}

// --- server side --------------------------------------------------------------------------------

/**
 * The server interceptor: verifies the token of every call but health checks, against the called
 * service as audience, then admits only the callers the RPC declares (`allowed`, by method path;
 * a path it lacks is refused to everyone). It must be the outermost interceptor so that the refusal
 * passes through (and is logged by) the others.
 */
export function serviceAuthInterceptor(
  keyring: ServiceKeyring,
  allowed: ReadonlyMap<string, readonly string[]>,
): grpc.ServerInterceptor {
  return (method, call) => {
    if (method.path.startsWith(HEALTH_PATH_PREFIX)) return new grpc.ServerInterceptingCall(call);
    const audience = serviceOfPath(method.path);
    const callers = allowed.get(method.path);
    let refused = false;
    const refuse = (code: grpc.status, details: string) => {
      refused = true;
      call.sendStatus({ code, details, metadata: new grpc.Metadata() });
    };
    const listener = new grpc.ServerListenerBuilder()
      .withOnReceiveMetadata((metadata, next) => {
        const [token] = metadata.get(SERVICE_TOKEN_METADATA);
        const verified = keyring.verify(typeof token === 'string' ? token : undefined, audience);
        if (!verified.ok) {
          return refuse(
            grpc.status.UNAUTHENTICATED,
            `service authentication failed: ${verified.reason}`,
          );
        }
        if (callers === undefined) {
          return refuse(
            grpc.status.PERMISSION_DENIED,
            `${method.path} declares no callers: it is refused to every service`,
          );
        }
        if (!callers.includes(verified.caller)) {
          return refuse(
            grpc.status.PERMISSION_DENIED,
            `${verified.caller} is not allowed to call ${method.path}`,
          );
        }
        metadata.remove(SERVICE_TOKEN_METADATA);
        metadata.set(SERVICE_CALLER_METADATA, verified.caller);
        next(metadata);
      })
      // Nothing of a refused call reaches the handler (grpc-js runs a unary handler at half-close).
      .withOnReceiveMessage((message, next) => {
        if (!refused) next(message);
      })
      .withOnReceiveHalfClose((next) => {
        if (!refused) next();
      })
      .build();
    const responder = new grpc.ResponderBuilder().withStart((next) => next(listener)).build();
    return new grpc.ServerInterceptingCall(call, responder);
  };
}

/**
 * The declared callers of a server's RPCs by method path. A declaration naming an RPC a hosted
 * service does not have is a mistake caught at start, not an open door; a declaration for a gRPC
 * service the server does not host is ignored (one ServiceDefinition declares all its services,
 * a test may host one of them). `undeclared` lists the hosted RPCs nobody declared: they are
 * refused to every caller.
 */
export function callersByPath(
  definitions: ReadonlyArray<grpc.ServiceDefinition>,
  callers: RpcCallers,
): { byPath: Map<string, readonly string[]>; undeclared: string[] } {
  const byPath = new Map<string, readonly string[]>();
  const undeclared: string[] = [];
  for (const definition of definitions) {
    const methods = new Map<string, string>();
    for (const [key, method] of Object.entries(definition)) {
      methods.set(method.path.split('/')[2] ?? key, method.path);
    }
    const service = serviceOfPath(Object.values(definition)[0]?.path ?? '');
    const declared = Object.hasOwn(callers, service) ? callers[service]! : {};
    for (const [rpc, names] of Object.entries(declared)) {
      const path = methods.get(rpc);
      if (path === undefined) {
        throw new Error(`the callers declared for ${rpc}: ${service} has no such RPC`);
      }
      byPath.set(path, names);
    }
    for (const path of methods.values()) if (!byPath.has(path)) undeclared.push(path);
  }
  return { byPath, undeclared };
}

/** The authenticated caller of a call, as the server recorded it. */
export function callerOf(call: { metadata: grpc.Metadata }): string | undefined {
  const [caller] = call.metadata.get(SERVICE_CALLER_METADATA);
  return typeof caller === 'string' ? caller : undefined;
}
