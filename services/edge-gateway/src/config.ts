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
  AUTH_GATEWAY_ADDR: grpcAddress('127.0.0.1:50051'),
  PUBLISHER_ADDR: grpcAddress('127.0.0.1:50052'),
  CATALOG_INDEXER_ADDR: grpcAddress('127.0.0.1:50053'),
  DEALS_ADDR: grpcAddress('127.0.0.1:50054'),
  CART_ADDR: grpcAddress('127.0.0.1:50055'),
  SECURE_ENTRY_ADDR: grpcAddress('127.0.0.1:50056'),
  CONNECTOR_ADDR: grpcAddress('127.0.0.1:50057'),
  RECONCILER_ADDR: grpcAddress('127.0.0.1:50058'),
  /** Deadline of each call to a backend service. */
  BACKEND_DEADLINE_MS: z.coerce.number().int().positive().default(5_000),
});

export type EdgeGatewayConfig = z.output<typeof configSchema>;

export const loadEdgeGatewayConfig = (env: NodeJS.ProcessEnv = process.env): EdgeGatewayConfig =>
  loadConfig(configSchema, env);
