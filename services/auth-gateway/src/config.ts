import { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { serviceConfigSchema } from '@marquee/platform/service';
import { trustedProxiesSetting } from '@marquee/platform/http';

/** The only module of auth-gateway that reads the environment; see README for each variable. */
export const configSchema = serviceConfigSchema({
  name: 'auth-gateway',
  httpPort: 8081,
  grpcPort: 50051,
}).extend({
  /** Quota of new apps (by default 5,000 calls a day at 5 a second); stored per app. */
  DEFAULT_QUOTA_PER_DAY: z.coerce.number().int().positive().default(5_000),
  DEFAULT_QUOTA_PER_SECOND: z.coerce.number().int().positive().default(5),
  /** Tickets a new app holds at once per event (cart's held-ticket quota); 0 = no limit. */
  DEFAULT_QUOTA_HELD_TICKETS_PER_EVENT: z.coerce.number().int().min(0).max(100_000).default(20),
  /**
   * Key of the `user_id` keyed hash of `/oauth/info`. Unset: a random key is created
   * once and kept in the service's database, so ids stay stable across restarts.
   */
  USER_ID_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  /**
   * The proxies whose `X-Forwarded-For` entries are believed (addresses or CIDR blocks, comma
   * separated; `none` for no proxy): the edge and the ingress in front of this service. The
   * throttles count the first address, from the right, that is not one of them. Default:
   * loopback (the edge on the same host, as in the local stack and the embedded default).
   */
  TRUSTED_PROXIES: trustedProxiesSetting('127.0.0.0/8,::1/128'),
});

export type AuthGatewayConfig = z.output<typeof configSchema>;

export const loadAuthGatewayConfig = (env: NodeJS.ProcessEnv = process.env): AuthGatewayConfig =>
  loadConfig(configSchema, env);
