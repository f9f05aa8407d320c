import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import type { Logger } from '../logger/create-logger.js';

/**
 * gRPC server reflection (`grpc.reflection.v1` and `v1alpha`, the `@grpc/reflection` package): lets
 * grpcurl, Postman or grpcui list a server's services and build requests without the .proto files.
 *
 * The ts-proto code the services are written with carries no descriptors, so reflection reads the
 * .proto sources of the repository (`proto/`, next to `packages/`) when the server is created, once
 * per process. They are there in a checkout (the embedded default, the local stack, tests); an
 * image built from a `pnpm deploy` holds no proto/, and a server asked for reflection there logs a
 * warning and serves without it.
 */

/** The reflection services' method paths: open without a service token, like health checks. */
const REFLECTION_PATH_PREFIXES = [
  '/grpc.reflection.v1.ServerReflection/',
  '/grpc.reflection.v1alpha.ServerReflection/',
] as const;

/** The health service every platform server adds; listed by reflection too. */
const HEALTH_SERVICE = 'grpc.health.v1.Health';

/** The repository's proto/ directory, seen from src/grpc/ or dist/grpc/ of this package. */
export const DEFAULT_PROTO_ROOT = fileURLToPath(new URL('../../../../proto/', import.meta.url));

export function isReflectionPath(path: string): boolean {
  return REFLECTION_PATH_PREFIXES.some((prefix) => path.startsWith(prefix));
}

/**
 * Whether servers offer reflection when their options do not say: `GRPC_REFLECTION` (`true` or
 * `false`, also `1` / `0`) when set, else on everywhere but `NODE_ENV=production`. Reflection
 * describes every RPC of the server to anyone who can reach its port, without a service token, so
 * production keeps it off unless a deployment asks for it. Any other value throws: a typo must not
 * silently pick one.
 */
export function reflectionByDefault(env: NodeJS.ProcessEnv = process.env): boolean {
  const raw = env.GRPC_REFLECTION?.trim().toLowerCase();
  if (raw === undefined || raw === '') return env.NODE_ENV !== 'production';
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new Error(`GRPC_REFLECTION must be true or false, not '${env.GRPC_REFLECTION}'`);
}

const definitions = new Map<string, protoLoader.PackageDefinition | undefined>();

/** Every .proto file under `root`, loaded once per process; undefined when there is no such directory. */
function packageDefinition(root: string): protoLoader.PackageDefinition | undefined {
  if (definitions.has(root)) return definitions.get(root);
  let loaded: protoLoader.PackageDefinition | undefined;
  if (existsSync(root)) {
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.proto'))
      .sort();
    // Well-known imports (google/protobuf/*.proto) come with protobufjs.
    loaded = files.length > 0 ? protoLoader.loadSync(files, { includeDirs: [root] }) : undefined;
  }
  definitions.set(root, loaded);
  return loaded;
}

/**
 * Adds reflection to `server`, describing the given services (fully-qualified names) and
 * `grpc.health.v1.Health`. Services whose .proto is not under `protoRoot` are not listed. Returns
 * whether reflection is served.
 */
export function addReflection(
  server: Pick<grpc.Server, 'addService'>,
  options: { services: readonly string[]; logger: Logger; protoRoot?: string },
): boolean {
  const root = options.protoRoot ?? DEFAULT_PROTO_ROOT;
  const definition = packageDefinition(root);
  if (!definition) {
    options.logger.warn(
      { protoRoot: root },
      'gRPC reflection asked for, but there are no .proto sources to describe the services with; serving without it',
    );
    return false;
  }
  new ReflectionService(definition, {
    services: [...new Set([...options.services, HEALTH_SERVICE])],
  }).addToServer(server);
  return true;
}
