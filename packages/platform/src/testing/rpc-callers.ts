import * as grpc from '@grpc/grpc-js';
import { createMemoryBus } from '../bus/memory-bus.js';
import {
  runAsService,
  SERVICE_TOKEN_METADATA,
  serviceKeyring,
  serviceOfPath,
  serviceTokenFor,
} from '../grpc/service-auth.js';
import { createLogger } from '../logger/index.js';
import { hostService } from '../service/host.js';
import type { ServiceDefinition } from '../service/types.js';

/** What one RPC answered one caller, and whether its declaration names that caller. */
export interface RpcCallerProbe {
  path: string;
  caller: string;
  /** The RPC's declared callers name `caller`. */
  allowed: boolean;
  code: grpc.status;
  /**
   * The service-auth gate refused the call, before any handler (a handler may answer
   * PERMISSION_DENIED of its own, to a request it does not accept).
   */
  gate: boolean;
}

export interface RpcCallersReport {
  /** Every RPC the service hosts, by method path (`/marquee.cart.v1.CartService/GetOrder`). */
  rpcs: string[];
  /** Every call made: each RPC once per identity. */
  probes: RpcCallerProbe[];
  /** Calls of an identity the RPC does not name that the gate did not refuse PERMISSION_DENIED. */
  admitted: RpcCallerProbe[];
  /** Calls of a declared caller that the gate refused. */
  refused: RpcCallerProbe[];
}

/**
 * Hosts `service` as its runners do (composed as itself, in memory, its gRPC server admitting the
 * definition's `callers`), then calls every RPC of every gRPC service it hosts once as each of
 * `identities`, with a valid service token and an empty request, and reports what each answered.
 * The gate answers before the handler, so the request's content does not matter to a refusal; a
 * declared caller reaches the handler, whose answer (OK, INVALID_ARGUMENT, NOT_FOUND, a deadline)
 * is anything but the gate's. `env` completes the service's configuration (addresses of the
 * services it calls; nothing needs to listen there).
 */
export async function probeRpcCallers<C>(
  service: ServiceDefinition<C>,
  options: { identities: readonly string[]; env?: NodeJS.ProcessEnv; deadlineMs?: number },
): Promise<RpcCallersReport> {
  const logger = createLogger({ service: `${service.name}-callers-test`, level: 'silent' });
  const bus = createMemoryBus({ source: '//test', logger });
  await bus.start();
  const infra = { name: service.name, logger, bus, mongo: undefined };
  const config = service.loadConfig({ HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...options.env });
  const parts = await runAsService(service.name, () => service.compose(infra, config));
  const definitions = (parts.grpc ?? []).map(({ definition }) => definition);
  const hosted = await hostService(infra, parts, {
    host: '127.0.0.1',
    httpPort: 0,
    grpcPort: 0,
    ...(service.uses ? { uses: service.uses } : {}),
    ...(service.callers ? { callers: service.callers } : {}),
  });
  const client = new grpc.Client(`127.0.0.1:${hosted.grpcPort}`, grpc.credentials.createInsecure());
  try {
    const methods = definitions.flatMap((definition) => Object.values(definition));
    const probes = await Promise.all(
      methods.flatMap((method) =>
        options.identities.map(async (caller): Promise<RpcCallerProbe> => {
          const [, grpcService = '', rpc = ''] = method.path.split('/');
          const declared = service.callers?.[grpcService]?.[rpc] ?? [];
          const { code, details } = await call(client, method, caller, options.deadlineMs ?? 5_000);
          const gate =
            (code === grpc.status.PERMISSION_DENIED && GATE_REFUSAL.test(details)) ||
            (code === grpc.status.UNAUTHENTICATED && details.startsWith('service authentication'));
          return { path: method.path, caller, allowed: declared.includes(caller), code, gate };
        }),
      ),
    );
    return {
      rpcs: methods.map((method) => method.path),
      probes,
      admitted: probes.filter(
        (p) => !p.allowed && !(p.gate && p.code === grpc.status.PERMISSION_DENIED),
      ),
      refused: probes.filter((p) => p.allowed && p.gate),
    };
  } finally {
    client.close();
    await hosted.stop();
    await bus.close();
  }
}

const asIs = (value: Buffer) => value;

/** The details of the gate's PERMISSION_DENIED (grpc/service-auth.ts). */
const GATE_REFUSAL = / is not allowed to call \/| declares no callers: /;

/** One call of `method` as `caller` with an empty message: the status it ended with. */
function call(
  client: grpc.Client,
  method: grpc.MethodDefinition<unknown, unknown>,
  caller: string,
  deadlineMs: number,
): Promise<{ code: grpc.status; details: string }> {
  const metadata = new grpc.Metadata();
  metadata.set(
    SERVICE_TOKEN_METADATA,
    serviceTokenFor(serviceKeyring(), caller, serviceOfPath(method.path)),
  );
  const options = { deadline: Date.now() + deadlineMs };
  return new Promise((resolve) => {
    if (method.requestStream) {
      resolve({ code: grpc.status.UNIMPLEMENTED, details: 'not probed' }); // none streams requests
    } else if (method.responseStream) {
      const stream = client.makeServerStreamRequest(
        method.path,
        asIs,
        asIs,
        Buffer.alloc(0),
        metadata,
        options,
      );
      stream.on('data', () => {
        // A message is an answer of the handler: the gate let the call through.
        resolve({ code: grpc.status.OK, details: '' });
        stream.cancel();
      });
      stream.on('status', (status: grpc.StatusObject) =>
        resolve({ code: status.code, details: status.details }),
      );
      stream.on('error', () => undefined);
    } else {
      client.makeUnaryRequest(
        method.path,
        asIs,
        asIs,
        Buffer.alloc(0),
        metadata,
        options,
        (error) =>
          resolve(
            error
              ? { code: error.code as grpc.status, details: error.details }
              : { code: grpc.status.OK, details: '' },
          ),
      );
    }
  });
}
