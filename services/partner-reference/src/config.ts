import type { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { serviceConfigSchema } from '@marquee/platform/service';

/** The only module of partner-reference that reads the environment (STYLE.md); see README for each variable. */
export const configSchema = serviceConfigSchema({
  name: 'partner-reference',
  httpPort: 8090,
  grpcPort: 50060,
});

export type PartnerReferenceConfig = z.output<typeof configSchema>;

export const loadPartnerReferenceConfig = (
  env: NodeJS.ProcessEnv = process.env,
): PartnerReferenceConfig => loadConfig(configSchema, env);
