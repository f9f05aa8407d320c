import type { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { serviceConfigSchema } from '@marquee/platform/service';

/** The only module of auth-gateway that reads the environment (STYLE.md); see README for each variable. */
export const configSchema = serviceConfigSchema({
  name: 'auth-gateway',
  httpPort: 8081,
  grpcPort: 50051,
});

export type AuthGatewayConfig = z.output<typeof configSchema>;

export const loadAuthGatewayConfig = (env: NodeJS.ProcessEnv = process.env): AuthGatewayConfig =>
  loadConfig(configSchema, env);
