import { z } from 'zod';
import { baseServiceConfig, port } from '../config/index.js';

/**
 * The configuration schema of one service: the shared keys with this service's defaults (name,
 * ports, its own database). A service extends the result with keys of its own.
 */
export function serviceConfigSchema(defaults: {
  name: string;
  httpPort: number;
  grpcPort: number;
}) {
  return baseServiceConfig.extend({
    SERVICE_NAME: z.string().min(1).default(defaults.name),
    HTTP_PORT: port().default(defaults.httpPort),
    GRPC_PORT: port().default(defaults.grpcPort),
    // One database per service (docs/decisions.md); Mongo database names cannot contain '-'.
    MONGO_DB: z
      .string()
      .regex(/^[A-Za-z0-9_]{1,63}$/, 'letters, digits and _ only')
      .default(defaults.name.replace(/-/g, '_')),
  });
}

/**
 * The consumer group of a read model kept in `mongoDb`. Committed offsets belong to the data they
 * were applied to: a read model in another database (a second deployment, a test run, a rebuild
 * into a fresh database) needs its own group so it reads the topic from the beginning instead of
 * inheriting offsets it never applied. The default database keeps the plain service name.
 */
export function readModelConsumerGroup(
  config: { SERVICE_NAME: string; MONGO_DB: string },
  defaultDb: string,
): string {
  return config.MONGO_DB === defaultDb
    ? config.SERVICE_NAME
    : `${config.SERVICE_NAME}.${config.MONGO_DB}`;
}
