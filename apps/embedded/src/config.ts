import { configSchema as partnerReferenceConfig } from '@marquee/partner-reference';
import { loadConfig, port, randomSecret } from '@marquee/platform/config';
import { z } from 'zod';

/** The environment `pnpm start` (main.ts) reads; the hosted services get their own from the run. */
export const embeddedConfigSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port().default(8080),
  PARTNER_PORT: port().default(8090),
  // The whole process's Prometheus metrics, always on 127.0.0.1.
  METRICS_PORT: port().default(9464),
  // The edge's rule (edge-gateway config): 128 bits or more in hex, base64 or base64url.
  ADMIN_TOKEN: randomSecret().optional(),
  // The demo partner's OAuth client, validated as partner-reference validates them; each
  // generated (and printed) when unset.
  PARTNER_CLIENT_ID: partnerReferenceConfig.shape.PARTNER_CLIENT_ID,
  PARTNER_CLIENT_SECRET: partnerReferenceConfig.shape.PARTNER_CLIENT_SECRET,
  // Ten services share one terminal here: warnings and errors only, unless asked.
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('warn'),
});

export type EmbeddedConfig = z.output<typeof embeddedConfigSchema>;

export const loadEmbeddedConfig = (env: NodeJS.ProcessEnv = process.env): EmbeddedConfig =>
  loadConfig(embeddedConfigSchema, env);
