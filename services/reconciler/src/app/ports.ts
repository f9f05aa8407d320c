import type { ReconciliationCase } from '../domain/case.js';
import type { PartnerTransaction } from '../domain/decision.js';
import type { EventReport } from '../domain/report.js';
import type { Transaction } from '../domain/transaction.js';

/** A stored record with the store's version (compare-and-set). */
export type Stored<T> = T & { version: number };

export interface TransactionRepository {
  get(id: string): Promise<Stored<Transaction> | undefined>;
  findByOrderId(orderId: string): Promise<Stored<Transaction> | undefined>;
  /**
   * Reads, applies `change` and writes with compare-and-set, retrying on a conflict. `change`
   * returning `undefined` leaves the record as it is. Resolves the stored record (or undefined).
   * `likelyNew`: the caller expects no record yet (the first fact of a transaction), so the record
   * `change(undefined)` makes is inserted without reading first; when one exists after all, it
   * is read and changed as usual. Saves the read on the common path; costs one refused insert
   * otherwise.
   */
  upsert(
    id: string,
    change: (current: Transaction | undefined) => Transaction | undefined,
    options?: { likelyNew?: boolean },
  ): Promise<Transaction | undefined>;
  delete(id: string): Promise<void>;
  /**
   * Deletes the record at `version`; `false` when it was written meanwhile (a new fact) or is
   * already gone.
   */
  deleteAt(id: string, version: number): Promise<boolean>;
  /**
   * Transactions whose latest fact (`lastActivityAt`) is before `before`, oldest first, after
   * skipping the first `skip` of them.
   */
  findInactiveBefore(
    before: Date,
    page: { skip: number; limit: number },
  ): Promise<Stored<Transaction>[]>;
  /** Holds not yet checked whose end is before `endedBefore`, oldest first. */
  findUncheckedHoldsEndedBefore(endedBefore: Date, limit: number): Promise<Transaction[]>;
  /** Transactions whose money check is due before `before` (`moneyCheckAt`), oldest first. */
  findMoneyChecksDueBefore(before: Date, limit: number): Promise<Transaction[]>;
  /** The event's transactions with activity since `since`. */
  findByEvent(eventId: string, since: Date): Promise<Transaction[]>;
  /** Ids of events with activity since `since`. */
  activeEventIds(since: Date): Promise<string[]>;
}

export interface CaseQuery {
  openOnly: boolean;
  partnerId?: string;
  offset: number;
  limit: number;
}

/**
 * Cases. A write that leaves a case decided (`open: false`) also records its
 * `reconciliation-resolved` event atomically (the adapters use the store's outbox).
 */
export interface CaseRepository {
  get(id: string): Promise<Stored<ReconciliationCase> | undefined>;
  /** Kind `already_exists` when the transaction already has its case. */
  insert(c: ReconciliationCase): Promise<Stored<ReconciliationCase>>;
  /** Compare-and-set on `expectedVersion` (kind `aborted` when stale). */
  update(c: ReconciliationCase, expectedVersion: number): Promise<Stored<ReconciliationCase>>;
  /** Open cases due at `now`, earliest first. */
  findDue(now: Date, limit: number): Promise<Stored<ReconciliationCase>[]>;
  /** Newest first. */
  list(query: CaseQuery): Promise<{ cases: ReconciliationCase[]; total: number }>;
}

export interface ReportRepository {
  get(eventId: string): Promise<EventReport | undefined>;
  /** Replaces the event's report. */
  put(report: EventReport): Promise<void>;
}

/**
 * The partner side, through 3p-connector. Rejections carry a `kind` (`unavailable`,
 * `deadline_exceeded`, `not_found`, ...).
 */
export interface PartnerConnector {
  listOrders(
    query:
      { eventId: string; inventoryToken: string } | { eventId: string; start: Date; end: Date },
  ): Promise<PartnerTransaction[]>;
  releaseBooking(eventId: string, inventoryToken: string): Promise<void>;
  /** Resolves `queued` when the connector took the cancel but the partner has not yet. */
  cancelOrder(input: {
    eventId: string;
    inventoryOrderId: string;
    orderId?: string;
  }): Promise<{ queued: boolean }>;
}

/** The time, as the platform's kernel defines it. */
export type { Clock } from '@marquee/platform/kernel';

export interface ReconcilerLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}
