import type { ReconciliationCase } from '../domain/case.js';
import type { EventReport } from '../domain/report.js';
import type { TransactionFact } from '../domain/transaction.js';
import { sweepMoneyChecks } from './commands/money-checks.js';
import { PurgeSettledTransactions, type PurgePass } from './commands/purge-transactions.js';
import { ReconcileEvents } from './commands/reconcile-event.js';
import { RecordFacts } from './commands/record-facts.js';
import { ResolveDueCases } from './commands/resolve-cases.js';
import { SweepStaleBookings } from './commands/sweep-stale-bookings.js';
import { SerialLane } from './core/serial-lane.js';
import { SettleCase } from './core/settle-case.js';
import type { CaseQuery } from './ports.js';
import { GetCase, ListCases } from './queries/cases.js';
import { GetEventReport } from './queries/event-report.js';
import type { PartnerCallFailure, ReconcilerDeps } from './types.js';

export type { PartnerCallFailure, ReconcilerDeps, ReconcilerSettings } from './types.js';

/**
 * The reconciler's use cases, composed: record what the platform knows per transaction
 * (`commands/record-facts.ts`), open cases when a transaction is in doubt (the sweeps), decide them
 * against the partner's records (through the connector) and act (`commands/resolve-cases.ts`,
 * `core/settle-case.ts`), and the per-event report (`commands/reconcile-event.ts`); reads in
 * `queries/`. Case work (the worker, the stale-hold sweep, reports) runs one job at a time in a
 * process (`core/serial-lane.ts`), so two jobs never act on the same partner transaction at once.
 * It holds no logic of its own beyond handing each call to its handler.
 */
export class ReconcilerApp {
  readonly #lane = new SerialLane();
  readonly #facts: RecordFacts;
  readonly #staleBookings: SweepStaleBookings;
  readonly #dueCases: ResolveDueCases;
  readonly #events: ReconcileEvents;
  readonly #purge: PurgeSettledTransactions;
  readonly #getCase: GetCase;
  readonly #listCases: ListCases;
  readonly #getEventReport: GetEventReport;

  constructor(private readonly deps: ReconcilerDeps) {
    const settle = new SettleCase(deps);
    this.#facts = new RecordFacts(deps);
    this.#staleBookings = new SweepStaleBookings(deps, this.#lane);
    this.#dueCases = new ResolveDueCases(deps, this.#lane, settle);
    this.#events = new ReconcileEvents(deps, this.#lane, settle);
    this.#purge = new PurgeSettledTransactions(deps, this.#lane);
    this.#getCase = new GetCase(deps.cases);
    this.#listCases = new ListCases(deps.cases);
    this.#getEventReport = new GetEventReport(deps.reports);
  }

  // ---- facts (consumers) --------------------------------------------------------------------

  recordBookingHeld(fact: Extract<TransactionFact, { kind: 'booking-held' }>): Promise<void> {
    return this.#facts.recordBookingHeld(fact);
  }

  recordOrderConfirmed(fact: Extract<TransactionFact, { kind: 'order-confirmed' }>): Promise<void> {
    return this.#facts.recordOrderConfirmed(fact);
  }

  /** A capture: its order is waited for, then its money checked (`sweepMoneyChecks`). */
  recordPaymentCaptured(
    fact: Extract<TransactionFact, { kind: 'payment-captured' }>,
  ): Promise<void> {
    return this.#facts.recordPaymentCaptured(fact);
  }

  recordOrderCancelled(fact: Extract<TransactionFact, { kind: 'order-cancelled' }>): Promise<void> {
    return this.#facts.recordOrderCancelled(fact);
  }

  /** Records the failure; a failure that puts the transaction in doubt opens (or reopens) its case. */
  recordPartnerCallFailed(failure: PartnerCallFailure): Promise<ReconciliationCase | undefined> {
    return this.#facts.recordPartnerCallFailed(failure);
  }

  // ---- worker -------------------------------------------------------------------------------

  /** Money cases: captures without an order, orders without their capture (see `checkMoney`). */
  sweepMoneyChecks(): Promise<number> {
    const { transactions, cases, clock, log, settings } = this.deps;
    return this.#lane.run(() =>
      sweepMoneyChecks({ transactions, cases, clock, log, graceMs: settings.graceMs }),
    );
  }

  /**
   * Holds that ended (plus the grace period) without an order: the partner is asked about each. A
   * hold the partner also ended (released, expired) needs nothing; anything else, or no answer,
   * opens a STALE_BOOKING case, due now.
   */
  sweepStaleBookings(): Promise<number> {
    return this.#staleBookings.handle();
  }

  /** Decides every open case that is due; resolves how many were decided. */
  resolveDueCases(): Promise<number> {
    return this.#dueCases.handle();
  }

  /**
   * Deletes transactions with no fact for the retention period that wait for nothing (no money
   * check, no unchecked hold, no open case); resolves how many. Nothing when no retention is set.
   */
  purgeSettledTransactions(pass?: PurgePass): Promise<number> {
    return this.#purge.handle(pass);
  }

  // ---- per-event report ---------------------------------------------------------------------

  /** Reconciles every event with platform activity in the look-back period; resolves how many. */
  reportActiveEvents(): Promise<number> {
    return this.#events.reportActiveEvents();
  }

  /**
   * Lists the partner's transactions of the event for the look-back period, compares them with the
   * platform's, cancels or releases orphans, flags paid orders missing at the partner, and stores
   * the report. Transactions with an open case are left to the worker. Kind `unavailable` when the
   * partner cannot be read.
   */
  reconcileEvent(eventId: string): Promise<EventReport> {
    return this.#events.reconcileEvent(eventId);
  }

  // ---- queries ------------------------------------------------------------------------------

  getCase(id: string): Promise<ReconciliationCase> {
    return this.#getCase.handle(id);
  }

  listCases(query: CaseQuery): Promise<{ cases: ReconciliationCase[]; total: number }> {
    return this.#listCases.handle(query);
  }

  getEventReport(eventId: string): Promise<EventReport> {
    return this.#getEventReport.handle(eventId);
  }
}
