import { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { serviceConfigSchema } from '@marquee/platform/service';

/** The only module of publisher that reads the environment; see README for each variable. */
export const configSchema = serviceConfigSchema({
  name: 'publisher',
  httpPort: 8082,
  grpcPort: 50052,
}).extend({
  /** How long an `Idempotency-Key` of a publication is kept and its first outcome answered again. */
  IDEMPOTENCY_TTL_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(24 * 60 * 60_000),
});

export type PublisherConfig = z.output<typeof configSchema>;

export const loadPublisherConfig = (env: NodeJS.ProcessEnv = process.env): PublisherConfig =>
  loadConfig(configSchema, env);
