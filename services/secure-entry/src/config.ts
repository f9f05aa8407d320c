import type { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { serviceConfigSchema } from '@marquee/platform/service';

/** The only module of secure-entry that reads the environment (STYLE.md); see README for each variable. */
export const configSchema = serviceConfigSchema({
  name: 'secure-entry',
  httpPort: 8086,
  grpcPort: 50056,
});

export type SecureEntryConfig = z.output<typeof configSchema>;

export const loadSecureEntryConfig = (env: NodeJS.ProcessEnv = process.env): SecureEntryConfig =>
  loadConfig(configSchema, env);
