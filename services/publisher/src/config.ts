import type { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { serviceConfigSchema } from '@marquee/platform/service';

/** The only module of publisher that reads the environment (STYLE.md); see README for each variable. */
export const configSchema = serviceConfigSchema({
  name: 'publisher',
  httpPort: 8082,
  grpcPort: 50052,
});

export type PublisherConfig = z.output<typeof configSchema>;

export const loadPublisherConfig = (env: NodeJS.ProcessEnv = process.env): PublisherConfig =>
  loadConfig(configSchema, env);
