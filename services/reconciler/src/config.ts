import { z } from 'zod';
import { loadConfig } from '@marquee/platform/config';
import { serviceConfigSchema } from '@marquee/platform/service';

const ms = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);

/** The only module of reconciler that reads the environment; see README for each variable. */
export const configSchema = serviceConfigSchema({
  name: 'reconciler',
  httpPort: 8088,
  grpcPort: 50058,
  // Its records wait out a grace of seconds anyway: it takes them a fetch a second, not one by one.
  kafkaFetchMinBytes: 64 * 1024,
})
  .extend({
    /** 3p-connector's gRPC address (ConnectorService: ListOrders, ReleaseBooking, OrderAction). */
    GRPC_ADDR_3P_CONNECTOR: z.string().min(1).default('127.0.0.1:50057'),
    /** Deadline of each connector call. */
    CONNECTOR_DEADLINE_MS: ms(10_000, 100),
    /** Wait after a failure or a hold's end before judging (the platform's own retries land first). */
    RECONCILE_GRACE_MS: ms(30_000),
    /** How often the worker looks for due cases and ended holds. */
    RECONCILE_INTERVAL_MS: ms(5_000, 10),
    /** Half-width of the period read from the partner around a failure when no booking id is known. */
    RECONCILE_WINDOW_MS: ms(15 * 60_000, 1_000),
    /** First retry delay of a case that could not be decided (doubles per attempt). */
    RECONCILE_BACKOFF_MS: ms(10_000, 10),
    /** Cap of that delay. */
    RECONCILE_BACKOFF_MAX_MS: ms(15 * 60_000, 10),
    /** How often every event with recent activity is reconciled; 0 turns the schedule off. */
    REPORT_INTERVAL_MS: ms(60 * 60_000),
    /** Which events the schedule visits and the period each report reads. */
    REPORT_LOOKBACK_MS: ms(7 * 24 * 60 * 60_000, 1_000),
    /**
     * A transaction waiting for nothing (no money check, no unchecked hold, no open case) is deleted
     * this long after its latest fact; 0 keeps every one. Longer than REPORT_LOOKBACK_MS.
     */
    TRANSACTION_RETENTION_HOURS: z.coerce
      .number()
      .int()
      .min(0)
      .default(30 * 24),
    /** How often the purge looks for such transactions (1,000 at most a pass). */
    TRANSACTION_PURGE_INTERVAL_MS: ms(60 * 60_000, 1_000),
    /** Kafka consumer group of the five consumers (tests give their own). */
    CONSUMER_GROUP: z.string().min(1).default('reconciler'),
    /** Attempts per consumed record before it is dead-lettered. */
    CONSUMER_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(10),
  })
  .superRefine((config, ctx) => {
    // A report reads the look-back period's transactions: none of them may be gone yet.
    const retentionMs = config.TRANSACTION_RETENTION_HOURS * 3_600_000;
    if (retentionMs > 0 && retentionMs <= config.REPORT_LOOKBACK_MS)
      ctx.addIssue({
        code: 'custom',
        path: ['TRANSACTION_RETENTION_HOURS'],
        message: `must be longer than REPORT_LOOKBACK_MS (${config.REPORT_LOOKBACK_MS / 3_600_000} hours), or 0 to keep every transaction`,
      });
  });

export type ReconcilerConfig = z.output<typeof configSchema>;

export const loadReconcilerConfig = (env: NodeJS.ProcessEnv = process.env): ReconcilerConfig =>
  loadConfig(configSchema, env);
