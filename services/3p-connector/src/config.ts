import { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { secretBoxKeysSetting } from '@marquee/platform/crypto';
import { serviceConfigSchema } from '@marquee/platform/service';
import { egressPolicy } from './domain/egress.js';

const millis = (min: number, fallback: number) =>
  z.coerce.number().int().min(min).default(fallback);

/** The only module of 3p-connector that reads the environment; see README for each variable. */
export const configSchema = serviceConfigSchema({
  name: '3p-connector',
  httpPort: 8087,
  grpcPort: 50057,
})
  .extend({
    /**
     * AES-256-GCM key of partner client secrets and access codes at rest, or a comma-separated
     * ring of them (the first seals, the others still open: a rotation); required in production.
     */
    PARTNER_CREDENTIALS_KEY: secretBoxKeysSetting.optional(),
    /** Scheduled import of every registered venue. */
    IMPORT_INTERVAL_MS: millis(100, 300_000),
    /** Healthcheck polling per partner (doubled up to 10 min while a partner reports 901). */
    HEALTH_INTERVAL_MS: millis(100, 30_000),
    /** Upper bound of one partner call (the caller's remaining gRPC deadline may be shorter). */
    PARTNER_CALL_TIMEOUT_MS: millis(50, 5_000),
    /** Upper bound of one page of a partner's event list (background import only). */
    PARTNER_LISTING_TIMEOUT_MS: millis(50, 30_000),
    /** How often the cancel-queue worker looks for due entries. */
    QUEUE_POLL_MS: millis(10, 1_000),
    /** Longest wait between two attempts of a queued cancel. */
    QUEUE_MAX_BACKOFF_MS: millis(1_000, 300_000),
    /**
     * Hosts partner calls may reach although they are not public: host names (exact), IP
     * addresses or CIDR ranges, comma- or blank-separated. Empty: only public addresses.
     */
    PARTNER_ALLOWED_HOSTS: z
      .string()
      .default('')
      .refine((value) => {
        try {
          egressPolicy({ requireHttps: false, allowedHosts: value });
          return true;
        } catch {
          return false;
        }
      }, 'must be host names, IP addresses or CIDR ranges separated by commas'),
    /** Largest partner answer read; a longer one is aborted while it streams. */
    PARTNER_MAX_RESPONSE_BYTES: z.coerce
      .number()
      .int()
      .min(1_024)
      .default(8 * 1024 * 1024),
    /**
     * Calls of one partner in flight at once (bookings, orders, availability reads, imports...);
     * further calls wait in the partner's FIFO queue. Set it to the partner's measured capacity.
     */
    PARTNER_MAX_CONCURRENT: z.coerce.number().int().min(1).default(32),
    /**
     * Calls of one partner waiting at most; one more is refused at once `unavailable`, reason
     * `partner-busy`, with `retryAfterMs` (so is a call still waiting at its deadline).
     */
    PARTNER_QUEUE_MAX: z.coerce.number().int().min(0).default(512),
    /** Consumer group of `order-cancelled`. */
    ORDER_CANCELLED_GROUP: z.string().min(1).default('3p-connector'),
  })
  .superRefine((config, ctx) => {
    if (config.NODE_ENV === 'production' && config.PARTNER_CREDENTIALS_KEY === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['PARTNER_CREDENTIALS_KEY'],
        message: 'is required when NODE_ENV=production',
      });
    }
  });

export type ThreePConnectorConfig = z.output<typeof configSchema>;

export const loadThreePConnectorConfig = (
  env: NodeJS.ProcessEnv = process.env,
): ThreePConnectorConfig => loadConfig(configSchema, env);
