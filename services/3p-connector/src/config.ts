import type { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { serviceConfigSchema } from '@marquee/platform/service';

/** The only module of 3p-connector that reads the environment (STYLE.md); see README for each variable. */
export const configSchema = serviceConfigSchema({
  name: '3p-connector',
  httpPort: 8087,
  grpcPort: 50057,
});

export type ThreePConnectorConfig = z.output<typeof configSchema>;

export const loadThreePConnectorConfig = (
  env: NodeJS.ProcessEnv = process.env,
): ThreePConnectorConfig => loadConfig(configSchema, env);
