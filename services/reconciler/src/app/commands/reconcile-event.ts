import { caseIdFor, openCase } from '../../domain/case.js';
import { belongsTo, decide, type PartnerTransaction } from '../../domain/decision.js';
import { ReconcilerError } from '../../domain/errors.js';
import type { EventReport } from '../../domain/report.js';
import {
  hasLiveBooking,
  isPaidOrder,
  orderOnlyTransactionId,
  type Transaction,
} from '../../domain/transaction.js';
import { mayPassLater, messageOf } from '../core/common.js';
import { openOrReopen } from '../core/open-case.js';
import type { SerialLane } from '../core/serial-lane.js';
import type { SettleCase } from '../core/settle-case.js';
import type { ReconcilerDeps } from '../types.js';

/** The platform transaction (if known) and the partner's transactions that belong to it. */
interface ReportGroup {
  transaction: Transaction | undefined;
  partner: PartnerTransaction[];
}

/**
 * The per-event report: an event's transactions at the partner compared with the platform's over
 * the look-back period, orphans cancelled or released, paid orders missing at the partner flagged,
 * and the report stored; for one event or every event with platform activity.
 */
export class ReconcileEvents {
  constructor(
    private readonly deps: ReconcilerDeps,
    private readonly lane: SerialLane,
    private readonly settle: SettleCase,
  ) {}

  /** Reconciles every event with platform activity in the look-back period; resolves how many. */
  async reportActiveEvents(): Promise<number> {
    const now = this.deps.clock.now();
    const eventIds = await this.deps.transactions.activeEventIds(
      new Date(now.getTime() - this.deps.settings.lookbackMs),
    );
    let done = 0;
    for (const eventId of eventIds) {
      try {
        await this.reconcileEvent(eventId);
        done++;
      } catch (error) {
        this.deps.log.warn(
          { eventId, err: error },
          'event reconciliation failed; next run retries',
        );
      }
    }
    return done;
  }

  /**
   * Lists the partner's transactions of the event for the look-back period, compares them with the
   * platform's, cancels or releases orphans, flags paid orders missing at the partner, and stores
   * the report. Transactions with an open case are left to the worker. Kind `unavailable` when the
   * partner cannot be read.
   */
  async reconcileEvent(eventId: string): Promise<EventReport> {
    if (!eventId) throw new ReconcilerError('invalid_argument', 'event id is required');
    return this.lane.run(() => this.runReport(eventId));
  }

  private async runReport(eventId: string): Promise<EventReport> {
    const now = this.deps.clock.now();
    const { graceMs, lookbackMs } = this.deps.settings;
    const periodStart = new Date(now.getTime() - lookbackMs);
    const settledBefore = new Date(now.getTime() - graceMs);
    const platform = await this.deps.transactions.findByEvent(eventId, periodStart);
    const partner = await this.readPartnerOrders(eventId, periodStart, now);
    const groups = await this.groupByTransaction(platform, partner);

    const report: EventReport = {
      id: eventId,
      eventId,
      partnerId: platform[0]?.partnerId || partner[0]?.partnerId || '',
      generatedAt: now,
      periodStart,
      periodEnd: now,
      partnerTransactions: partner.length,
      platformTransactions: platform.filter((t) => hasLiveBooking(t, now) || isPaidOrder(t)).length,
      matched: 0,
      orphansCancelled: 0,
      missingAtPartner: 0,
      caseIds: [],
    };
    for (const group of groups) {
      await this.reconcileGroup(report, group, { eventId, now, settledBefore });
    }
    await this.deps.reports.put(report);
    this.deps.log.info(
      {
        eventId,
        partnerTransactions: report.partnerTransactions,
        matched: report.matched,
        orphansCancelled: report.orphansCancelled,
        missingAtPartner: report.missingAtPartner,
      },
      'event reconciled',
    );
    return report;
  }

  /** The partner's transactions of the event in the period; kind `unavailable` when unreadable. */
  private async readPartnerOrders(
    eventId: string,
    start: Date,
    end: Date,
  ): Promise<PartnerTransaction[]> {
    try {
      return await this.deps.connector.listOrders({ eventId, start, end });
    } catch (error) {
      if (mayPassLater(error)) {
        throw new ReconcilerError(
          'unavailable',
          `the partner's records could not be read: ${messageOf(error)}`,
        );
      }
      throw error;
    }
  }

  /** Groups the partner's transactions by the platform transaction they belong to. */
  private async groupByTransaction(
    platform: Transaction[],
    partner: PartnerTransaction[],
  ): Promise<ReportGroup[]> {
    const groups: ReportGroup[] = [];
    const assigned = new Set<PartnerTransaction>();
    for (const transaction of platform) {
      const mine = partner.filter((p) => !assigned.has(p) && belongsTo(transaction, p));
      mine.forEach((p) => assigned.add(p));
      groups.push({ transaction, partner: mine });
    }
    const strays = new Map<string, PartnerTransaction[]>();
    for (const p of partner) {
      if (assigned.has(p)) continue;
      const key = p.cartId || (p.orderId ? `order:${p.orderId}` : `token:${p.inventoryToken}`);
      strays.set(key, [...(strays.get(key) ?? []), p]);
    }
    for (const group of strays.values()) {
      const first = group[0]!;
      // Known to the platform but without activity in the period (or under its order id only).
      const transaction =
        (first.cartId ? await this.deps.transactions.get(first.cartId) : undefined) ??
        (first.orderId ? await this.deps.transactions.findByOrderId(first.orderId) : undefined);
      groups.push({ transaction, partner: group });
    }
    return groups;
  }

  /**
   * Decides one group of the report, counts it, and opens (and settles) a case when it is not
   * consistent. A group whose case is open is left to the worker.
   */
  private async reconcileGroup(
    report: EventReport,
    group: ReportGroup,
    at: { eventId: string; now: Date; settledBefore: Date },
  ): Promise<void> {
    const { eventId, now, settledBefore } = at;
    const { transaction } = group;
    const caseId = caseIdFor(transactionIdOf(transaction, group.partner));
    const existing = await this.deps.cases.get(caseId);
    if (existing?.open) return; // the worker owns it
    const theirs = await this.partnerRecordsOf(eventId, transaction, group.partner);
    const decision = decide({ platform: transaction, partner: theirs, now, settledBefore });
    report.matched += decision.matched;
    if (decision.outcome === 'CONSISTENT') return;
    if (decision.missingAtPartner) report.missingAtPartner++;
    // Already flagged for operators and nothing else to do: not re-announced every run.
    if (
      existing &&
      existing.outcome === 'MANUAL' &&
      decision.outcome === 'MANUAL' &&
      decision.actions.length === 0
    ) {
      report.caseIds.push(existing.id);
      return;
    }
    const c = await openOrReopen(
      this.deps.cases,
      openCase({
        transaction: transaction ?? strayTransaction(eventId, theirs, now),
        trigger: 'ORDER_MISMATCH',
        observedAt: now,
        dueAt: now,
        now,
        detail: 'found by the event reconciliation',
      }),
    );
    report.caseIds.push(c.id);
    const stored = await this.deps.cases.get(c.id);
    if (!stored?.open) return;
    const { acted } = await this.settle.settle(stored, decision, 'ORDER_MISMATCH');
    report.orphansCancelled += acted;
  }

  /**
   * The partner's records of a group. A paid order outside the period read: asks for its booking
   * before calling it missing.
   */
  private async partnerRecordsOf(
    eventId: string,
    transaction: Transaction | undefined,
    theirs: PartnerTransaction[],
  ): Promise<PartnerTransaction[]> {
    if (!transaction || !isPaidOrder(transaction) || theirs.length > 0) return theirs;
    if (!transaction.inventoryToken) return theirs;
    const found = await this.deps.connector.listOrders({
      eventId,
      inventoryToken: transaction.inventoryToken,
    });
    return found.filter((p) => belongsTo(transaction, p));
  }
}

function transactionIdOf(t: Transaction | undefined, partner: PartnerTransaction[]): string {
  if (t) return t.id;
  const first = partner[0]!;
  return (
    first.cartId ||
    (first.orderId ? orderOnlyTransactionId(first.orderId) : `token:${first.inventoryToken}`)
  );
}

/** A transaction the platform has no record of, described by what the partner reported. */
function strayTransaction(eventId: string, partner: PartnerTransaction[], now: Date): Transaction {
  const first = partner[0]!;
  return {
    id: transactionIdOf(undefined, partner),
    eventId,
    partnerId: first.partnerId,
    ...(first.cartId ? { cartId: first.cartId } : {}),
    ...(first.orderId ? { orderId: first.orderId } : {}),
    phase: 'unknown',
    staleChecked: true,
    lastActivityAt: now,
  };
}
