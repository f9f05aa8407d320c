import { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { secretBoxKeysSetting } from '@marquee/platform/crypto';
import { serviceConfigSchema } from '@marquee/platform/service';
import { parseContactKeys } from '@marquee/proto/order-contact';
import { parseMaintenanceWindow } from './domain/maintenance.js';

const int = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);

/** `ORDER_CONTACT_KEYS`: the contact key ring (`@marquee/proto/order-contact`), sealing key first. */
const contactKeyRing = z.string().refine((text) => {
  try {
    parseContactKeys(text);
    return true;
  } catch {
    return false;
  }
}, 'must be <key id>:<base64 of 32 bytes> entries, comma-separated, ids unique');

const maintenanceWindow = z
  .string()
  .default('02:00-04:00')
  .superRefine((value, ctx) => {
    try {
      parseMaintenanceWindow(value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
    }
  });

/** The only module of cart that reads the environment; see README for each variable. */
export const configSchema = serviceConfigSchema({
  name: 'cart',
  httpPort: 8085,
  grpcPort: 50055,
})
  .extend({
    /** 3p-connector's gRPC address (ConnectorService: bookings, orders, availability). */
    GRPC_ADDR_3P_CONNECTOR: z.string().min(1).default('127.0.0.1:50057'),
    /** Deadline of each connector call. */
    CONNECTOR_DEADLINE_MS: int(10_000, 100),
    /** secure-entry's gRPC address (ListAdmittedSeats: resale never lists an admitted seat). */
    GRPC_ADDR_SECURE_ENTRY: z.string().min(1).default('127.0.0.1:50056'),
    /**
     * AES-256-GCM key of order tokens and access codes at rest, or a comma-separated ring of them
     * (the first seals, the others still open: a rotation); required in production.
     */
    CART_ORDER_TOKEN_KEY: secretBoxKeysSetting.optional(),
    /**
     * Key ring that seals the buyer's contact on `order-confirmed` (shared with secure-entry);
     * required in production, a fixed public development ring otherwise.
     */
    ORDER_CONTACT_KEYS: contactKeyRing.optional(),
    /** How long after its start a reserve answers PENDING if the partner has not answered yet. */
    CART_RESERVE_WAIT_MS: int(1_500),
    /** Reserves one process runs at once; more are refused `overloaded`, 429 at the edge (load shedding). */
    CART_MAX_RESERVES_IN_FLIGHT: int(64, 1),
    /** ReserveCart requests that may wait in line for a reserve place when none is free; more are refused `overloaded`. */
    CART_RESERVE_QUEUE_MAX: int(2_048),
    /** How long a ReserveCart request waits in line for a reserve place at most (0: refused at once). */
    CART_RESERVE_QUEUE_WAIT_MS: int(1_500),
    /** TTL of a sold-out book entry: after a best-available reserve is refused as sold out, equal or larger ones of its price level are refused at once this long (0: off). */
    CART_SOLD_OUT_HINT_MS: int(5_000),
    /** Pause between two ticks of the waiting rooms' admitter (each replica ticks). */
    CART_QUEUE_TICK_MS: int(500, 50),
    /** `poll_after_seconds` of a pending cart. */
    CART_POLL_AFTER_SECONDS: int(1, 1),
    /** CreateBooking attempts of a reserve on transient failures. */
    CART_RESERVE_ATTEMPTS: int(3, 1),
    /** First retry delay of a reserve (doubles). */
    CART_RESERVE_RETRY_MS: int(500, 1),
    /**
     * A pending cart whose attempt started longer ago is resumed by the sweeper (its process died).
     * Longer than one attempt and the pause after it, so a live reserve is not run twice; unset,
     * that gap plus 4 s (`pendingResumeMs`: 15 s with the default deadline and retries).
     */
    CART_PENDING_RESUME_MS: z.coerce.number().int().min(100).optional(),
    /** How often the sweeper runs (expiry, resumed reserves, owed releases and voids). */
    CART_SWEEP_INTERVAL_MS: int(1_000, 10),
    /** Owed releases and voids are retried this long after the last try. */
    CART_OWED_RETRY_MS: int(5_000, 0),
    /** A paid cart whose commit started this long ago may expire. */
    CART_COMMIT_GRACE_MS: int(120_000, 0),
    /** Ended carts that owe nothing are deleted this many hours after they ended (0: kept). */
    CART_ENDED_RETENTION_HOURS: int(168, 0),
    /** Nightly maintenance window in the event's local time, `HH:MM-HH:MM`, or `off`. */
    CART_MAINTENANCE_WINDOW: maintenanceWindow,
    /** Service fee per ticket, basis points of the face value. */
    CART_SERVICE_FEE_BPS: int(1_000),
    /** Lowest service fee per ticket, minor units. */
    CART_SERVICE_FEE_MIN_MINOR: int(150),
    /** Order processing fee, minor units, once per cart. */
    CART_PROCESSING_FEE_MINOR: int(250),
    /** Tax on fees, basis points. */
    CART_FEE_TAX_BPS: int(2_000),
    /**
     * Payment processor of production-prefix carts: `stripe` or `sandbox` (no money moves).
     * Unset: `sandbox` in development; required (`stripe`) with NODE_ENV=production. Sandbox
     * carts always use the sandbox processor.
     */
    CART_PAYMENT_PROCESSOR: z.enum(['sandbox', 'stripe']).optional(),
    /**
     * Test stacks only: lets NODE_ENV=production run with `CART_PAYMENT_PROCESSOR=sandbox`, so
     * production-prefix carts take no money. Never set in a real deployment.
     */
    CART_PRODUCTION_SANDBOX_PAYMENTS: z
      .enum(['true', 'false'])
      .default('false')
      .transform((value) => value === 'true'),
    /** Stripe's secret (or restricted) API key; `STRIPE_SECRET_KEY_FILE` to read it from a file. */
    STRIPE_SECRET_KEY: z
      .string()
      .regex(
        /^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/,
        'must be a Stripe secret key (sk_... or rk_...)',
      )
      .optional(),
    /** The signing secret of Stripe's webhook endpoint (`whsec_...`); `_FILE` variant as above. */
    STRIPE_WEBHOOK_SECRET: z
      .string()
      .regex(/^whsec_[A-Za-z0-9_]+$/, 'must be a Stripe webhook signing secret (whsec_...)')
      .optional(),
    /** Where the Stripe API is instead of https://api.stripe.com (stripe-mock: `STRIPE_MOCK_URL`). */
    STRIPE_API_BASE: z.string().url().optional(),
    /** The processor's deadline (the sandbox timeout nonce waits this long; each Stripe request). */
    CART_PAYMENT_TIMEOUT_MS: int(5_000, 1),
    /** Hold time of sandbox carts, seconds. */
    CART_SANDBOX_HOLD_SECONDS: int(600, 1),
    /** Longest hold of a cart, seconds (ends before the partner's hold end); 0 = the partner's. */
    CART_MAX_HOLD_SECONDS: int(0),
    /**
     * Tickets one app holds at once for one event (pending, held and paid carts; not sandbox
     * carts); a reserve past it is refused 409 code 20060. 0 = no limit.
     */
    CART_HELD_TICKETS_PER_EVENT: int(20),
    /** Lifetime of a top picks fan session (`X-PLATFORM-SESSION-SID`), seconds. */
    CART_FAN_SESSION_TTL_SECONDS: int(3_600, 1),
    /** Capacity of a sandbox area whose size is unknown. */
    CART_SANDBOX_AREA_CAPACITY: int(100, 1),
    /** A tracking hit is attributed to carts the app reserves for the event within this window. */
    CART_TRACKING_WINDOW_MS: int(24 * 60 * 60_000, 0),
    /**
     * How long the newest tracking hit of an app for an event, once read, answers reserves without
     * another lookup; a hit recorded by another replica shows after at most this. 0 = every time.
     */
    CART_TRACKING_CACHE_MS: int(1_000, 0),
    /** Terms of use linked from every cart. */
    CART_TERMS_URL: z.string().url().default('https://marquee.example/legal/terms'),
    /** Secure-entry acknowledgement linked from carts of secure-entry events. */
    CART_SECURE_ENTRY_AGREEMENT_URL: z
      .string()
      .url()
      .default('https://marquee.example/legal/secure-entry'),
    /** Redemption URL of orders: the order number is appended. */
    CART_REDEMPTION_BASE_URL: z.string().url().default('https://marquee.example/orders/'),
    /** Attempts per record of the projection's topics before it is logged and skipped. */
    CONSUMER_MAX_ATTEMPTS: int(10, 1),
    /** Idempotency records are kept this long. */
    IDEMPOTENCY_TTL_MS: int(24 * 60 * 60_000, 1_000),
    /** Commerce presale passwords: the window wrong passwords are counted in (README, "Presale passwords"). */
    CART_PRESALE_PASSWORD_WINDOW_SECONDS: int(600, 1),
    /** Wrong presale passwords one app may present for one event per window; then 429. */
    CART_PRESALE_PASSWORD_FAILURES_PER_APP: int(25, 1),
    /** Wrong presale passwords one signed-in fan may present for one event per window; then 429. */
    CART_PRESALE_PASSWORD_FAILURES_PER_FAN: int(10, 1),
  })
  .superRefine((config, ctx) => {
    const production = config.NODE_ENV === 'production';
    const issue = (variable: string, message: string) =>
      ctx.addIssue({ code: 'custom', path: [variable], message });
    if (production && config.CART_ORDER_TOKEN_KEY === undefined)
      issue('CART_ORDER_TOKEN_KEY', 'is required when NODE_ENV=production');
    if (production && config.ORDER_CONTACT_KEYS === undefined)
      issue('ORDER_CONTACT_KEYS', 'is required when NODE_ENV=production');
    // Production takes money: Stripe and its secrets, all missing ones named at once.
    const sandboxAllowed = config.CART_PRODUCTION_SANDBOX_PAYMENTS;
    const stripe = config.CART_PAYMENT_PROCESSOR === 'stripe' || (production && !sandboxAllowed);
    if (production && config.CART_PAYMENT_PROCESSOR !== 'stripe' && !sandboxAllowed)
      issue(
        'CART_PAYMENT_PROCESSOR',
        'must be stripe when NODE_ENV=production (the sandbox processor takes no money)',
      );
    if (stripe && config.STRIPE_SECRET_KEY === undefined)
      issue(
        'STRIPE_SECRET_KEY',
        `is required ${production ? 'when NODE_ENV=production' : 'with CART_PAYMENT_PROCESSOR=stripe'} (or STRIPE_SECRET_KEY_FILE)`,
      );
    if (stripe && production && config.STRIPE_WEBHOOK_SECRET === undefined)
      issue(
        'STRIPE_WEBHOOK_SECRET',
        'is required when NODE_ENV=production (or STRIPE_WEBHOOK_SECRET_FILE)',
      );
    const longestGap = longestClaimGapMs(config);
    if (config.CART_PENDING_RESUME_MS !== undefined && config.CART_PENDING_RESUME_MS <= longestGap)
      issue(
        'CART_PENDING_RESUME_MS',
        `must be longer than CONNECTOR_DEADLINE_MS plus the longest reserve retry pause (${longestGap} ms), or a live reserve is resumed a second time`,
      );
    if (production && config.STRIPE_API_BASE?.startsWith('http:'))
      issue('STRIPE_API_BASE', 'must be https when NODE_ENV=production');
  });

export type CartConfig = z.output<typeof configSchema>;

type ReserveTiming = Pick<
  CartConfig,
  'CONNECTOR_DEADLINE_MS' | 'CART_RESERVE_RETRY_MS' | 'CART_RESERVE_ATTEMPTS'
>;

/**
 * The longest a live reserve goes without claiming its cart again: it claims before every
 * attempt, so one connector call and then the longest retry pause.
 */
function longestClaimGapMs(config: ReserveTiming): number {
  return (
    config.CONNECTOR_DEADLINE_MS +
    config.CART_RESERVE_RETRY_MS * 2 ** Math.max(0, config.CART_RESERVE_ATTEMPTS - 2)
  );
}

/** When the sweeper resumes a pending cart: `CART_PENDING_RESUME_MS`, else the claim gap + 4 s. */
export function pendingResumeMs(
  config: ReserveTiming & Pick<CartConfig, 'CART_PENDING_RESUME_MS'>,
): number {
  return config.CART_PENDING_RESUME_MS ?? longestClaimGapMs(config) + 4_000;
}

export const loadCartConfig = (env: NodeJS.ProcessEnv = process.env): CartConfig =>
  loadConfig(configSchema, env);
