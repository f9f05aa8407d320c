import { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { serviceConfigSchema } from '@marquee/platform/service';

const flag = () => z.enum(['true', 'false']).transform((v) => v === 'true');

/** The only module of partner-reference that reads the environment; see README for each variable. */
export const configSchema = serviceConfigSchema({
  name: 'partner-reference',
  httpPort: 8090,
  grpcPort: 50060,
}).extend({
  /**
   * Bearer token of the back office, its own: a reference partner is not part of the platform, so
   * the platform's ADMIN_TOKEN never opens it. Required in production (checked in service.ts),
   * generated otherwise.
   */
  PARTNER_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /**
   * The platform's admin token, when the environment carries one (a shared env file, `pnpm
   * stack`): read only to refuse a PARTNER_ADMIN_TOKEN equal to it.
   */
  ADMIN_TOKEN: z.string().optional(),
  /** The OAuth client the platform uses; both generated (and printed once) when unset. */
  PARTNER_CLIENT_ID: z
    .string()
    .regex(/^[\x21-\x7e]{1,256}$/, 'printable ASCII, no spaces, at most 256 characters')
    .optional(),
  PARTNER_CLIENT_SECRET: z.string().min(16, 'must be at least 16 characters').max(512).optional(),
  /**
   * Failed client authentications a client id or a caller address may have a minute at
   * `/oauth/token`; past it both are refused 429 until the minute ends (0 = no bound).
   */
  PARTNER_TOKEN_FAILURES_PER_MINUTE: z.coerce.number().int().min(0).default(10),
  PARTNER_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3_600),
  /** How long a booking holds its seats. */
  /** `false`: CANCEL with `tickets` is refused with 310 (a partner that cancels whole orders only). */
  PARTNER_PARTIAL_CANCEL: flag().default(true),
  BOOKING_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(600_000),
  /** How often expired bookings are swept (they are also expired lazily on every read). */
  PARTNER_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  /** Seed the demo venues and events at start when there are none. Default: development on memory. */
  PARTNER_SEED_DEMO: flag().optional(),
});

export type PartnerReferenceConfig = z.output<typeof configSchema>;

export const loadPartnerReferenceConfig = (
  env: NodeJS.ProcessEnv = process.env,
): PartnerReferenceConfig => loadConfig(configSchema, env);

/** Whether to seed the demo inventory: as configured, else outside production on memory storage. */
export const shouldSeedDemo = (
  config: PartnerReferenceConfig,
  storage: 'memory' | 'mongo',
): boolean =>
  config.PARTNER_SEED_DEMO ?? (config.NODE_ENV !== 'production' && storage === 'memory');
