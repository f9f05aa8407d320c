import type { ReconciliationCase } from '../../domain/case.js';
import {
  belongsTo,
  decide,
  type PartnerTransaction,
  type TransactionRefs,
} from '../../domain/decision.js';
import type { Transaction } from '../../domain/transaction.js';
import { BATCH, messageOf } from '../core/common.js';
import type { SerialLane } from '../core/serial-lane.js';
import type { SettleCase } from '../core/settle-case.js';
import type { Stored } from '../ports.js';
import type { ReconcilerDeps } from '../types.js';

const refsOf = (c: ReconciliationCase, t: Transaction | undefined): TransactionRefs => ({
  cartId: c.cartId ?? t?.cartId,
  orderId: c.orderId ?? t?.orderId,
  inventoryToken: c.inventoryToken,
  inventoryOrderId: c.inventoryOrderId ?? t?.inventoryOrderId,
});

/**
 * The worker's case decisions: every open case that is due is decided against the partner's
 * records and settled, or postponed when the partner cannot be read.
 */
export class ResolveDueCases {
  constructor(
    private readonly deps: ReconcilerDeps,
    private readonly lane: SerialLane,
    private readonly settle: SettleCase,
  ) {}

  /** Decides every open case that is due; resolves how many were decided. */
  handle(): Promise<number> {
    return this.lane.run(async () => {
      const due = await this.deps.cases.findDue(this.deps.clock.now(), BATCH);
      let decided = 0;
      for (const c of due) {
        const after = await this.resolveCase(c);
        if (after && !after.open) decided++;
      }
      return decided;
    });
  }

  private async transactionOf(c: ReconciliationCase): Promise<Transaction | undefined> {
    return (
      (await this.deps.transactions.get(c.transactionId)) ??
      (c.orderId ? await this.deps.transactions.findByOrderId(c.orderId) : undefined) ??
      (c.cartId ? await this.deps.transactions.get(c.cartId) : undefined)
    );
  }

  private async resolveCase(
    c: Stored<ReconciliationCase>,
  ): Promise<ReconciliationCase | undefined> {
    const now = this.deps.clock.now();
    const { graceMs, windowMs } = this.deps.settings;
    const transaction = await this.transactionOf(c);
    let partner: PartnerTransaction[];
    try {
      partner = await this.deps.connector.listOrders(
        c.inventoryToken
          ? { eventId: c.eventId, inventoryToken: c.inventoryToken }
          : {
              eventId: c.eventId,
              start: new Date(c.observedAt.getTime() - windowMs),
              end: new Date(c.observedAt.getTime() + windowMs),
            },
      );
    } catch (error) {
      return this.settle.postpone(
        c,
        `the partner's records could not be read: ${messageOf(error)}`,
      );
    }
    const refs = refsOf(c, transaction);
    const decision = decide({
      platform: transaction,
      partner: partner.filter((p) => belongsTo(refs, p)),
      now,
      settledBefore: new Date(now.getTime() - graceMs),
    });
    return (await this.settle.settle(c, decision)).case;
  }
}
