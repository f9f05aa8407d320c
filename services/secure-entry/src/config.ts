import { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { secretBoxKeysSetting } from '@marquee/platform/crypto';
import { readModelConsumerGroup, serviceConfigSchema } from '@marquee/platform/service';
import { parseContactKeys } from '@marquee/proto/order-contact';

const isKey = (value: string) =>
  /^[A-Za-z0-9+/]+={0,2}$/.test(value) && Buffer.from(value, 'base64').length === 32;

/**
 * The token key ring: `<key id>:<base64 of 32 bytes>` entries, comma-separated. The first entry
 * seals new tokens; every entry opens them (keep a retired key listed until the tokens it sealed
 * have been refreshed). Key ids are 1–16 of `[A-Za-z0-9_-]`, unique.
 */
const keyRing = z.string().superRefine((value, ctx) => {
  const ids = new Set<string>();
  for (const entry of value.split(',').map((e) => e.trim())) {
    const match = /^([A-Za-z0-9_-]{1,16}):(.+)$/.exec(entry);
    if (!match || !isKey(match[2]!)) {
      ctx.addIssue({
        code: 'custom',
        message: 'entries must be <key id>:<base64 of 32 bytes>, comma-separated',
      });
      return;
    }
    if (ids.has(match[1]!)) {
      ctx.addIssue({ code: 'custom', message: 'key ids must be unique' });
      return;
    }
    ids.add(match[1]!);
  }
});

/** `ORDER_CONTACT_KEYS`: the contact key ring (`@marquee/proto/order-contact`), sealing key first. */
const contactKeyRing = z.string().refine((text) => {
  try {
    parseContactKeys(text);
    return true;
  } catch {
    return false;
  }
}, 'must be <key id>:<base64 of 32 bytes> entries, comma-separated, ids unique');

const positiveInt = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

/** The only module of secure-entry that reads the environment; see README for each variable. */
export const configSchema = serviceConfigSchema({
  name: 'secure-entry',
  httpPort: 8086,
  grpcPort: 50056,
})
  .extend({
    /** AES-256-GCM key ring of the sealed part of tokens; required in production. */
    SECURE_ENTRY_TOKEN_KEYS: keyRing.optional(),
    /**
     * AES-256-GCM key of per-ticket secrets at rest, base64 of 32 bytes, or a comma-separated ring
     * of them (the first seals, the others still open: a rotation); required in production.
     */
    SECURE_ENTRY_SECRET_KEY: secretBoxKeysSetting.optional(),
    /**
     * Key ring that opens the buyer's contact on `order-confirmed` (cart's, the same ring);
     * required in production, a fixed public development ring otherwise.
     */
    ORDER_CONTACT_KEYS: contactKeyRing.optional(),
    /** Tokens are re-keyed (new rotating secrets) when shown this many hours before the start. */
    TOKEN_REFRESH_HOURS_BEFORE_EVENT: positiveInt(20),
    /**
     * Delayed delivery: tokens are withheld until this many hours before the event's start (0 = off,
     * tokens at once). Needs the start time from `event-changed`.
     */
    DELAYED_DELIVERY_HOURS_BEFORE_EVENT: positiveInt(0),
    /** How long a verified gate token is trusted without re-reading the gate (revocation lag). */
    GATE_CACHE_MS: positiveInt(5_000),
    /** Scans one gate may have evaluated per minute in one replica (0 = no bound); then 429. */
    GATE_SCANS_PER_MINUTE: positiveInt(120),
    /** FORGED scans one gate may cause per minute in one replica (0 = no bound); then 429. */
    GATE_FORGED_SCANS_PER_MINUTE: positiveInt(30),
    /**
     * Consumer group of `order-confirmed` and `order-cancelled` (`event-changed` adds `.events`).
     * Default: see `consumerGroup` (tied to the database, like every read model's).
     */
    CONSUMER_GROUP: z.string().min(1).optional(),
    /** cart's gRPC address (`callsLater`): the fan id backfill of older orders asks its GetOrder. */
    GRPC_ADDR_CART: z.string().min(1).default('127.0.0.1:50055'),
    /** Deadline of one call to cart. */
    CART_DEADLINE_MS: positiveInt(5_000),
    /** How long the fan id backfill waits after a failure (cart unavailable) before it goes on. */
    FAN_ID_BACKFILL_RETRY_MS: positiveInt(60_000),
  })
  .superRefine((config, ctx) => {
    if (config.NODE_ENV !== 'production') return;
    for (const key of [
      'SECURE_ENTRY_TOKEN_KEYS',
      'SECURE_ENTRY_SECRET_KEY',
      'ORDER_CONTACT_KEYS',
    ] as const) {
      if (config[key] === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: 'is required when NODE_ENV=production',
        });
      }
    }
  });

export type SecureEntryConfig = z.output<typeof configSchema>;

/**
 * The consumer group: `secure-entry` for the default database, `secure-entry.<MONGO_DB>` for any
 * other. Committed offsets belong to the tickets they were applied to: two deployments (or test
 * runs) on one broker with their own databases must not share a group, or each would get only
 * some partitions of `order-confirmed` and issue only some orders' tickets, and a fresh database
 * would not replay `event-changed` (the events' start times).
 */
export const consumerGroup = (config: SecureEntryConfig): string =>
  config.CONSUMER_GROUP ?? readModelConsumerGroup(config, 'secure_entry');

export const loadSecureEntryConfig = (env: NodeJS.ProcessEnv = process.env): SecureEntryConfig =>
  loadConfig(configSchema, env);
