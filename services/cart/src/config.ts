import type { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { serviceConfigSchema } from '@marquee/platform/service';

/** The only module of cart that reads the environment (STYLE.md); see README for each variable. */
export const configSchema = serviceConfigSchema({
  name: 'cart',
  httpPort: 8085,
  grpcPort: 50055,
});

export type CartConfig = z.output<typeof configSchema>;

export const loadCartConfig = (env: NodeJS.ProcessEnv = process.env): CartConfig =>
  loadConfig(configSchema, env);
