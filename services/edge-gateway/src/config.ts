import { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { serviceConfigSchema } from '@marquee/platform/service';

const grpcAddress = (fallback: string) =>
  z
    .string()
    .regex(/^[\w.-]+:\d{1,5}$|^\[[0-9a-f:]+\]:\d{1,5}$/i, 'must be host:port')
    .default(fallback);

/** The only module of edge-gateway that reads the environment (STYLE.md); see README. */
export const configSchema = serviceConfigSchema({
  name: 'edge-gateway',
  httpPort: 8080,
  grpcPort: 50050,
}).extend({
  // Required in production (checked in service.ts, which knows NODE_ENV); generated otherwise.
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  GRPC_ADDR_AUTH_GATEWAY: grpcAddress('127.0.0.1:50051'),
  GRPC_ADDR_PUBLISHER: grpcAddress('127.0.0.1:50052'),
  GRPC_ADDR_CATALOG_INDEXER: grpcAddress('127.0.0.1:50053'),
  GRPC_ADDR_DEALS: grpcAddress('127.0.0.1:50054'),
  GRPC_ADDR_CART: grpcAddress('127.0.0.1:50055'),
  GRPC_ADDR_SECURE_ENTRY: grpcAddress('127.0.0.1:50056'),
  GRPC_ADDR_3P_CONNECTOR: grpcAddress('127.0.0.1:50057'),
  GRPC_ADDR_RECONCILER: grpcAddress('127.0.0.1:50058'),
  /** auth-gateway's HTTP base URL: the edge proxies `/oauth/*` there (spec 01 {auth_url} on {base_url}). */
  HTTP_URL_AUTH_GATEWAY: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8081'),
  /** Deadline of each call to a backend service. */
  BACKEND_DEADLINE_MS: z.coerce.number().int().positive().default(5_000),
});

export type EdgeGatewayConfig = z.output<typeof configSchema>;

export const loadEdgeGatewayConfig = (env: NodeJS.ProcessEnv = process.env): EdgeGatewayConfig =>
  loadConfig(configSchema, env);
