/** What ReconcilerApp is built on (its deps and settings) and the failure fact it records. */
import type { FailedOperation } from '../domain/case.js';
import type { TransactionFact } from '../domain/transaction.js';
import type {
  CaseRepository,
  Clock,
  PartnerConnector,
  ReconcilerLog,
  ReportRepository,
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
  /**
   * A transaction with nothing left to do is deleted this long after its latest fact; kept for
   * good when absent. Longer than `lookbackMs`, so a report never misses a transaction.
   */
  retentionMs?: number;
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
