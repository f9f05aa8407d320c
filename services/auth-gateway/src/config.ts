import { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { serviceConfigSchema } from '@marquee/platform/service';

/** The only module of auth-gateway that reads the environment (STYLE.md); see README for each variable. */
export const configSchema = serviceConfigSchema({
  name: 'auth-gateway',
  httpPort: 8081,
  grpcPort: 50051,
}).extend({
  /** Quota of new apps (REAL-APIS.md: 5000 a day at 5 a second); stored per app. */
  DEFAULT_QUOTA_PER_DAY: z.coerce.number().int().positive().default(5_000),
  DEFAULT_QUOTA_PER_SECOND: z.coerce.number().int().positive().default(5),
  /**
   * Key of the `user_id` keyed hash (spec 01 §User information). Unset: a random key is created
   * once and kept in the service's database, so ids stay stable across restarts.
   */
  USER_ID_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  /**
   * Take the sign-in throttle's client IP from `X-Forwarded-For` whatever the peer (only when the
   * edge alone can reach this port). Requests from loopback peers are always trusted for it.
   */
  TRUST_FORWARDED_FOR: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
});

export type AuthGatewayConfig = z.output<typeof configSchema>;

export const loadAuthGatewayConfig = (env: NodeJS.ProcessEnv = process.env): AuthGatewayConfig =>
  loadConfig(configSchema, env);
