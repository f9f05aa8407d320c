import { z } from 'zod';
import {
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  DEFAULT_SESSION_TIMEOUT_MS,
} from '../bus/consumer-timing.js';
import { serviceAuthKeyProblem } from '../grpc/service-token.js';
import { kafkaSecurityConfig } from './kafka-security.js';

/** A TCP port from the environment; 0 asks the OS for an ephemeral one (tests, embedded mode). */
export const port = () => z.coerce.number().int().min(0).max(65_535);

/** `a:1, b:2` → `['a:1', 'b:2']`; at least one non-empty item. */
export const commaSeparatedList = () =>
  z
    .string()
    .transform((raw) =>
      raw
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0),
    )
    .pipe(z.array(z.string()).min(1, 'must list at least one item'));

/**
 * The keys every service shares. A service extends it in its `src/config.ts`, overriding what it
 * defaults differently:
 *
 * ```ts
 * export const configSchema = baseServiceConfig.extend({
 *   SERVICE_NAME: z.string().default('deals'),
 *   HTTP_PORT: port().default(8084),
 *   GRPC_PORT: port().default(50054),
 * });
 * ```
 */
export const baseServiceConfig = z.object({
  SERVICE_NAME: z.string().min(1),
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Loopback by default: a process only listens on all interfaces when its deployment says so.
  HOST: z.string().min(1).default('127.0.0.1'),
  HTTP_PORT: port(),
  GRPC_PORT: port(),
  // Prometheus metrics (`GET /metrics`) on a port of their own, on HOST, never on the public
  // HTTP port (metrics/server.ts). 9464 is the port registered for OpenTelemetry's Prometheus
  // exporter; processes sharing a host (the local stack, tests) give each its own.
  METRICS_PORT: port().default(9464),
  // How long a client connection to this process's gRPC server may live before the server asks the
  // client to reconnect (GOAWAY), and how long calls in flight then get to finish. Clients
  // re-resolve the service's name when they reconnect, so replicas added since (an HPA scale-up)
  // start getting calls within this age. 0 turns it off.
  GRPC_MAX_CONNECTION_AGE_MS: z.coerce.number().int().min(0).default(300_000),
  GRPC_MAX_CONNECTION_AGE_GRACE_MS: z.coerce.number().int().min(0).default(30_000),
  KAFKA_BROKERS: commaSeparatedList().optional(),
  // Topics a service uses: `create` makes the missing ones with the catalog's settings (development,
  // tests, `pnpm stack`); `verify` never creates and refuses a missing topic or one compacted unlike
  // the catalog (the deployment's topic Job owns them). Default: verify in production, else create.
  KAFKA_TOPICS: z.enum(['create', 'verify']).optional(),
  // TLS and SASL to the brokers (config/kafka-security.ts): KAFKA_SSL, KAFKA_SSL_CA, KAFKA_SSL_CERT,
  // KAFKA_SSL_KEY, KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD (+ `_FILE`).
  ...kafkaSecurityConfig,
  // Kafka consumer group timing (bus/consumer-timing.ts): how long the group waits for a member
  // that stopped heartbeating (a killed or hung process) before giving its partitions to others,
  // and how often members heartbeat. The session is also the longest one handler call may run.
  // A service whose handlers are quick sets lower defaults (serviceConfigSchema); runService
  // refuses a heartbeat that is not below the session.
  KAFKA_SESSION_TIMEOUT_MS: z.coerce.number().int().positive().default(DEFAULT_SESSION_TIMEOUT_MS),
  KAFKA_HEARTBEAT_INTERVAL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(DEFAULT_HEARTBEAT_INTERVAL_MS),
  // Bytes of records a consumer group's fetch waits for, up to a second (bus `consumer.minBytes`):
  // 1 answers every record at once; a service whose consumers may lag a second batches them.
  KAFKA_FETCH_MIN_BYTES: z.coerce.number().int().positive().default(1),
  // Not z.url(): a replica-set URL such as mongodb://a:27017,b:27017/db is no WHATWG URL.
  MONGO_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\/\S+$/, 'must be a mongodb:// or mongodb+srv:// URL')
    .optional(),
  // Slow-command log: a Mongo command that takes this long or longer is logged at warn with its
  // name, collection and duration (never its filter or documents). Off when unset.
  MONGO_SLOW_MS: z.coerce.number().int().positive().optional(),
  // Command statistics: every this many ms, one info line with the count and summed time of the
  // Mongo commands per name and collection. Off when unset.
  MONGO_COMMAND_STATS_MS: z.coerce.number().int().positive().optional(),
  // Connections to the Mongo server per process: at most this many commands run at once.
  MONGO_MAX_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(20),
  // The key services sign and check each other's gRPC calls with (grpc/service-auth.ts); one or
  // more base64 keys of 32+ bytes, the first signing. Required in production by any process that
  // hosts an RPC or calls one; generated per process otherwise. A secret: mount it as a file.
  SERVICE_AUTH_KEY: z
    .string()
    .superRefine((value, context) => {
      const problem = serviceAuthKeyProblem(value);
      if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  // Kubernetes' default grace period is 30 s; the chart raises both together.
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
});

export type BaseServiceConfig = z.output<typeof baseServiceConfig>;
