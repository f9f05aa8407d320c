import type { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { serviceConfigSchema } from '@marquee/platform/service';

/** The only module of deals that reads the environment (STYLE.md); see README for each variable. */
export const configSchema = serviceConfigSchema({
  name: 'deals',
  httpPort: 8084,
  grpcPort: 50054,
});

export type DealsConfig = z.output<typeof configSchema>;

export const loadDealsConfig = (env: NodeJS.ProcessEnv = process.env): DealsConfig =>
  loadConfig(configSchema, env);
