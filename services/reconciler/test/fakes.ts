import { createServiceStores, type ServiceStores } from '@marquee/platform/store';
import { createReconcilerStorage } from '../src/adapters/stores.js';
import { ReconcilerApp, type ReconcilerSettings } from '../src/app/reconciler-app.js';
import type { PartnerConnector } from '../src/app/ports.js';
import type { PartnerTransaction } from '../src/domain/decision.js';

/** An in-memory partner behind the PartnerConnector port: answers from `orders`, records actions. */
export class FakeConnector implements PartnerConnector {
  orders: PartnerTransaction[] = [];
  /** When set, every call rejects with this error. */
  failure: (Error & { kind?: string }) | undefined;
  readonly released: string[] = [];
  readonly cancelled: string[] = [];
  readonly queries: unknown[] = [];

  private check(): void {
    if (this.failure) throw this.failure;
  }

  async listOrders(
    query:
      { eventId: string; inventoryToken: string } | { eventId: string; start: Date; end: Date },
  ): Promise<PartnerTransaction[]> {
    this.queries.push(query);
    this.check();
    return this.orders.filter((o) =>
      'inventoryToken' in query
        ? o.inventoryToken === query.inventoryToken
        : o.eventId === query.eventId &&
          (!o.createdAt || (o.createdAt >= query.start && o.createdAt <= query.end)),
    );
  }

  async releaseBooking(_eventId: string, inventoryToken: string): Promise<void> {
    this.check();
    this.released.push(inventoryToken);
    for (const o of this.orders) if (o.inventoryToken === inventoryToken) o.status = 'RELEASED';
  }

  async cancelOrder(input: { inventoryOrderId: string }): Promise<{ queued: boolean }> {
    this.check();
    this.cancelled.push(input.inventoryOrderId);
    for (const o of this.orders)
      if (o.inventoryOrderId === input.inventoryOrderId) o.status = 'CANCELLED';
    return { queued: false };
  }
}

export const unavailable = (): Error & { kind: string } =>
  Object.assign(new Error('connect ECONNREFUSED'), { kind: 'unavailable' });

/** A clock the test moves by hand. */
export class ManualClock {
  constructor(public current: Date) {}
  readonly now = (): Date => this.current;
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

/** The reconciler's grace period in the app tests. */
export const GRACE = 30_000;

/** A log that drops everything. */
const silent = { info: () => {}, warn: () => {} };

/**
 * A ReconcilerApp on memory storage (or the `stores` given), its clock `now`, with the settings of
 * the app tests and any `settings` given.
 */
export function testReconciler(
  connector: FakeConnector,
  now: () => Date,
  options: { stores?: ServiceStores; settings?: Partial<ReconcilerSettings> } = {},
) {
  const storage = createReconcilerStorage(options.stores ?? createServiceStores(undefined));
  const app = new ReconcilerApp({
    ...storage,
    connector,
    clock: { now },
    log: silent,
    settings: {
      graceMs: GRACE,
      windowMs: 15 * 60_000,
      backoffBaseMs: 10_000,
      backoffMaxMs: 60_000,
      lookbackMs: 7 * 24 * 3_600_000,
      ...options.settings,
    },
  });
  return { storage, app };
}
