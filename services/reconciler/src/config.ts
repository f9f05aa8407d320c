import type { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { serviceConfigSchema } from '@marquee/platform/service';

/** The only module of reconciler that reads the environment (STYLE.md); see README for each variable. */
export const configSchema = serviceConfigSchema({
  name: 'reconciler',
  httpPort: 8088,
  grpcPort: 50058,
});

export type ReconcilerConfig = z.output<typeof configSchema>;

export const loadReconcilerConfig = (env: NodeJS.ProcessEnv = process.env): ReconcilerConfig =>
  loadConfig(configSchema, env);
