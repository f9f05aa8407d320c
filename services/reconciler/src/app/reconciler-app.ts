import {
  errorKindOf,
  isTransient,
  isWriteRace,
  retryingConflicts,
  withoutVersion,
} from '@marquee/platform/kernel';
import {
  backoffMs,
  caseIdFor,
  failureOpensCase,
  openCase,
  reopenCase,
  type CaseTrigger,
  type FailedOperation,
  type ReconciliationCase,
} from '../domain/case.js';
import {
  belongsTo,
  decide,
  type Decision,
  type PartnerTransaction,
  type TransactionRefs,
} from '../domain/decision.js';
import { ReconcilerError } from '../domain/errors.js';
import { sweepMoneyChecks } from './money-checks.js';
import type { EventReport } from '../domain/report.js';
import {
  applyFact,
  hasLiveBooking,
  isPaidOrder,
  mergeTransactions,
  orderOnlyTransactionId,
  type Transaction,
  type TransactionFact,
} from '../domain/transaction.js';
import type {
  CaseQuery,
  CaseRepository,
  Clock,
  PartnerConnector,
  ReconcilerLog,
  ReportRepository,
  Stored,
  TransactionRepository,
} from './ports.js';

export interface ReconcilerSettings {
  /** Wait after a failure (or a hold's end) before judging, so the platform's own retries land. */
  graceMs: number;
  /** Half-width of the period read from the partner around a failure when no token is known. */
  windowMs: number;
  /** First retry delay of a case that could not be decided; doubles per attempt. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** How far back the per-event report reads and which events it visits. */
  lookbackMs: number;
}

export interface ReconcilerDeps {
  transactions: TransactionRepository;
  cases: CaseRepository;
  reports: ReportRepository;
  connector: PartnerConnector;
  clock: Clock;
  log: ReconcilerLog;
  settings: ReconcilerSettings;
}

export type PartnerCallFailure = Extract<TransactionFact, { kind: 'partner-call-failed' }> & {
  operation: FailedOperation;
  outcomeUnknown: boolean;
  message: string;
};

/** The platform transaction (if known) and the partner's transactions that belong to it. */
interface ReportGroup {
  transaction: Transaction | undefined;
  partner: PartnerTransaction[];
}

const BATCH = 100;

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
/** A call that may succeed if tried again later: a transient failure, or a callee out of quota. */
const mayPassLater = (error: unknown): boolean =>
  isTransient(error) || errorKindOf(error) === 'resource_exhausted';

const refsOf = (c: ReconciliationCase, t: Transaction | undefined): TransactionRefs => ({
  cartId: c.cartId ?? t?.cartId,
  orderId: c.orderId ?? t?.orderId,
  inventoryToken: c.inventoryToken,
  inventoryOrderId: c.inventoryOrderId ?? t?.inventoryOrderId,
});

/**
 * The reconciler's use cases: record what the platform knows per transaction, open cases when a
 * transaction is in doubt, decide them against the partner's records (through the connector) and
 * act, and the per-event report. Case work (the worker, the stale-hold sweep, reports) runs one
 * job at a time in a process, so two jobs never act on the same partner transaction at once.
 */
export class ReconcilerApp {
  private lane: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: ReconcilerDeps) {}

  private serial<T>(job: () => Promise<T>): Promise<T> {
    const run = this.lane.then(job, job);
    this.lane = run.catch(() => undefined);
    return run;
  }

  // ---- facts (consumers) --------------------------------------------------------------------

  async recordBookingHeld(fact: Extract<TransactionFact, { kind: 'booking-held' }>): Promise<void> {
    // A hold is normally the first the reconciler hears of a cart.
    await this.apply(fact.cartId, fact, { likelyNew: true });
  }

  async recordOrderConfirmed(
    fact: Extract<TransactionFact, { kind: 'order-confirmed' }>,
  ): Promise<void> {
    const id = fact.cartId || orderOnlyTransactionId(fact.orderId);
    await this.apply(id, fact);
    if (!fact.cartId) return;
    // A cancel seen before the cart was known was kept under the order id: fold it in.
    const orderOnly = await this.deps.transactions.get(orderOnlyTransactionId(fact.orderId));
    if (!orderOnly) return;
    await this.deps.transactions.upsert(id, (current) =>
      current ? mergeTransactions(current, orderOnly) : undefined,
    );
    await this.deps.transactions.delete(orderOnly.id);
  }

  /** A capture: its order is waited for, then its money checked (`sweepMoneyChecks`). */
  async recordPaymentCaptured(
    fact: Extract<TransactionFact, { kind: 'payment-captured' }>,
  ): Promise<void> {
    await this.apply(fact.cartId, fact);
  }

  /** Money cases: captures without an order, orders without their capture (see `checkMoney`). */
  sweepMoneyChecks(): Promise<number> {
    const { transactions, cases, clock, log, settings } = this.deps;
    return this.serial(() =>
      sweepMoneyChecks({ transactions, cases, clock, log, graceMs: settings.graceMs }),
    );
  }

  async recordOrderCancelled(
    fact: Extract<TransactionFact, { kind: 'order-cancelled' }>,
  ): Promise<void> {
    const known = await this.deps.transactions.findByOrderId(fact.orderId);
    await this.apply(known?.id ?? orderOnlyTransactionId(fact.orderId), fact);
  }

  /** Records the failure; a failure that puts the transaction in doubt opens (or reopens) its case. */
  async recordPartnerCallFailed(
    failure: PartnerCallFailure,
  ): Promise<ReconciliationCase | undefined> {
    let id = failure.cartId;
    if (!id && failure.orderId) {
      const known = await this.deps.transactions.findByOrderId(failure.orderId);
      id = known?.id ?? orderOnlyTransactionId(failure.orderId);
    }
    if (!id) {
      this.deps.log.warn(
        { operation: failure.operation, eventId: failure.eventId },
        'partner-call-failed names neither a cart nor an order: nothing to reconcile',
      );
      return undefined;
    }
    const { operation, outcomeUnknown, message, ...fact } = failure;
    const transaction = await this.apply(id, fact);
    if (!transaction || !failureOpensCase(operation, outcomeUnknown)) return undefined;
    const { graceMs } = this.deps.settings;
    return this.openOrReopen(
      openCase({
        transaction,
        trigger: 'PARTNER_CALL_FAILED',
        observedAt: failure.failedAt,
        ...(failure.inventoryToken ? { inventoryToken: failure.inventoryToken } : {}),
        ...(failure.inventoryOrderId ? { inventoryOrderId: failure.inventoryOrderId } : {}),
        dueAt: new Date(failure.failedAt.getTime() + graceMs),
        now: this.deps.clock.now(),
        detail: `${operation} ${outcomeUnknown ? 'got no answer' : 'failed'} (${message || 'no message'}); waiting ${graceMs} ms before reading the partner`,
      }),
    );
  }

  private apply(
    id: string,
    fact: TransactionFact,
    options?: { likelyNew?: boolean },
  ): Promise<Transaction | undefined> {
    const now = this.deps.clock.now();
    return this.deps.transactions.upsert(
      id,
      (current) => applyFact(id, current, fact, now),
      options,
    );
  }

  private async openOrReopen(fresh: ReconciliationCase): Promise<ReconciliationCase> {
    // Another writer inserted or changed the case meanwhile: read it again and reopen that.
    return retryingConflicts(
      async () => {
        const current = await this.deps.cases.get(fresh.id);
        if (!current) return this.deps.cases.insert(fresh);
        const next = reopenCase(current, fresh);
        return next ? this.deps.cases.update(next, current.version) : current;
      },
      { isConflict: isWriteRace },
    );
  }

  // ---- worker -------------------------------------------------------------------------------

  /**
   * Holds that ended (plus the grace period) without an order: the partner is asked about each. A
   * hold the partner also ended (released, expired) needs nothing; anything else, or no answer,
   * opens a STALE_BOOKING case, due now.
   */
  sweepStaleBookings(): Promise<number> {
    return this.serial(async () => {
      const now = this.deps.clock.now();
      const { graceMs } = this.deps.settings;
      const holds = await this.deps.transactions.findUncheckedHoldsEndedBefore(
        new Date(now.getTime() - graceMs),
        BATCH,
      );
      let opened = 0;
      for (const hold of holds) {
        let needsCase = true;
        let detail = `hold ${hold.inventoryToken ?? '?'} ended ${hold.expiresAt?.toISOString() ?? '?'} with no order`;
        try {
          const partner = hold.inventoryToken
            ? await this.deps.connector.listOrders({
                eventId: hold.eventId,
                inventoryToken: hold.inventoryToken,
              })
            : [];
          const decision = decide({
            platform: hold,
            partner: partner.filter((p) => belongsTo(hold, p)),
            now,
            settledBefore: new Date(now.getTime() - graceMs),
          });
          needsCase = decision.outcome !== 'CONSISTENT';
        } catch (error) {
          detail += `; the partner could not be read (${messageOf(error)})`;
        }
        if (needsCase) {
          await this.openOrReopen(
            openCase({
              transaction: hold,
              trigger: 'STALE_BOOKING',
              observedAt: hold.expiresAt ?? now,
              ...(hold.inventoryToken ? { inventoryToken: hold.inventoryToken } : {}),
              dueAt: now,
              now,
              detail,
            }),
          );
          opened++;
        }
        await this.deps.transactions.upsert(hold.id, (current) =>
          current &&
          current.phase === 'held' &&
          current.heldAt?.getTime() === hold.heldAt?.getTime()
            ? { ...current, staleChecked: true }
            : undefined,
        );
      }
      return opened;
    });
  }

  /** Decides every open case that is due; resolves how many were decided. */
  resolveDueCases(): Promise<number> {
    return this.serial(async () => {
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
      return this.postpone(c, `the partner's records could not be read: ${messageOf(error)}`);
    }
    const refs = refsOf(c, transaction);
    const decision = decide({
      platform: transaction,
      partner: partner.filter((p) => belongsTo(refs, p)),
      now,
      settledBefore: new Date(now.getTime() - graceMs),
    });
    return (await this.settle(c, decision)).case;
  }

  /**
   * Carries out a decision's partner actions and stores the outcome (which publishes
   * `reconciliation-resolved`). A transient failure keeps the case open for a later attempt; a
   * refusal hands it to an operator. A concurrent change of the case skips it (`undefined`).
   */
  private async settle(
    c: Stored<ReconciliationCase>,
    decision: Decision,
    trigger?: CaseTrigger,
  ): Promise<{ case: ReconciliationCase | undefined; acted: number }> {
    const notes: string[] = [];
    let acted = 0;
    for (const action of decision.actions) {
      try {
        if (action.kind === 'release-booking') {
          await this.deps.connector.releaseBooking(action.eventId, action.inventoryToken);
        } else {
          const { queued } = await this.deps.connector.cancelOrder(action);
          if (queued) notes.push(`cancel of ${action.inventoryOrderId} queued by the connector`);
        }
        acted++;
      } catch (error) {
        if (action.kind === 'release-booking' && errorKindOf(error) === 'not_found') {
          acted++;
          continue; // already gone at the partner
        }
        const what =
          action.kind === 'release-booking'
            ? `release booking ${action.inventoryToken}`
            : `cancel order ${action.inventoryOrderId}`;
        if (mayPassLater(error)) {
          return { case: await this.postpone(c, `could not ${what}: ${messageOf(error)}`), acted };
        }
        return {
          case: await this.write(c, {
            outcome: 'MANUAL',
            detail: `the partner refused to ${what} (${messageOf(error)}); ${decision.detail}`,
            ...(trigger ? { trigger } : {}),
          }),
          acted,
        };
      }
    }
    const detail = [decision.detail, ...notes].join('; ');
    return {
      case: await this.write(c, {
        outcome: decision.outcome,
        detail,
        ...(trigger ? { trigger } : decision.missingAtPartner ? { trigger: 'ORDER_MISMATCH' } : {}),
      }),
      acted,
    };
  }

  private async write(
    c: Stored<ReconciliationCase>,
    change: Pick<ReconciliationCase, 'outcome' | 'detail'> & { trigger?: CaseTrigger },
  ): Promise<ReconciliationCase | undefined> {
    const { version, ...rest } = c;
    const next: ReconciliationCase = {
      ...rest,
      ...change,
      open: false,
      resolvedAt: this.deps.clock.now(),
    };
    try {
      const stored = await this.deps.cases.update(next, version);
      this.deps.log.info(
        { caseId: c.id, outcome: next.outcome, trigger: next.trigger },
        'reconciliation case decided',
      );
      return stored;
    } catch (error) {
      if (errorKindOf(error) === 'aborted') return undefined;
      throw error;
    }
  }

  private async postpone(
    c: Stored<ReconciliationCase>,
    reason: string,
  ): Promise<ReconciliationCase | undefined> {
    const now = this.deps.clock.now();
    const { backoffBaseMs, backoffMaxMs } = this.deps.settings;
    const attempts = c.attempts + 1;
    const dueAt = new Date(now.getTime() + backoffMs(attempts, backoffBaseMs, backoffMaxMs));
    const { version, ...rest } = c;
    this.deps.log.warn({ caseId: c.id, attempts, dueAt }, `reconciliation postponed: ${reason}`);
    try {
      return await this.deps.cases.update(
        {
          ...rest,
          attempts,
          dueAt,
          detail: `${reason} (attempt ${attempts}; next at ${dueAt.toISOString()})`,
        },
        version,
      );
    } catch (error) {
      if (errorKindOf(error) === 'aborted') return undefined;
      throw error;
    }
  }

  // ---- per-event report ---------------------------------------------------------------------

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
    return this.serial(() => this.runReport(eventId));
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
    const c = await this.openOrReopen(
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
    const { acted } = await this.settle(stored, decision, 'ORDER_MISMATCH');
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

  // ---- queries ------------------------------------------------------------------------------

  async getCase(id: string): Promise<ReconciliationCase> {
    if (!id) throw new ReconcilerError('invalid_argument', 'case id is required');
    const found = await this.deps.cases.get(id);
    if (!found) throw new ReconcilerError('not_found', `no reconciliation case ${id}`);
    return withoutVersion(found);
  }

  async listCases(query: CaseQuery): Promise<{ cases: ReconciliationCase[]; total: number }> {
    if (query.offset < 0 || query.limit < 0) {
      throw new ReconcilerError('invalid_argument', 'offset and limit must not be negative');
    }
    return this.deps.cases.list(query);
  }

  async getEventReport(eventId: string): Promise<EventReport> {
    if (!eventId) throw new ReconcilerError('invalid_argument', 'event id is required');
    const report = await this.deps.reports.get(eventId);
    if (!report)
      throw new ReconcilerError('not_found', `event ${eventId} has not been reconciled yet`);
    return report;
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
