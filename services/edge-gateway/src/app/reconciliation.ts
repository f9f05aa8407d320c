/**
 * The edge's port to the reconciler (ReconcilerService), in the admin API's own terms. Implemented
 * by adapters/reconciler-client.ts over gRPC and by fakes in tests.
 */

export type CaseTrigger =
  | 'UNSPECIFIED'
  | 'PARTNER_CALL_FAILED'
  | 'STALE_BOOKING'
  | 'ORDER_MISMATCH'
  | 'CAPTURE_WITHOUT_ORDER'
  | 'ORDER_WITHOUT_CAPTURE';
export type CaseOutcome =
  'OPEN' | 'CONSISTENT' | 'ORDER_CONFIRMED' | 'ORDER_CANCELLED' | 'BOOKING_RELEASED' | 'MANUAL';

export interface CaseRecord {
  id: string;
  partnerId: string;
  eventId: string;
  cartId?: string;
  orderId?: string;
  inventoryToken?: string;
  inventoryOrderId?: string;
  trigger: CaseTrigger;
  outcome: CaseOutcome;
  detail: string;
  openedAt?: string;
  /** Absent while the case is open. */
  resolvedAt?: string;
  /** What an operator must do (money cases). */
  operatorAction?: string;
  /** The processor's payment id (money cases). */
  paymentId?: string;
}

export interface CaseQuery {
  openOnly: boolean;
  partnerId?: string;
  offset: number;
  limit: number;
}

export interface CasePage {
  cases: CaseRecord[];
  page: { offset: number; limit: number; total: number };
}

export interface EventReportRecord {
  eventId: string;
  partnerId: string;
  generatedAt?: string;
  periodStart?: string;
  periodEnd?: string;
  partnerTransactions: number;
  platformTransactions: number;
  matched: number;
  orphansCancelled: number;
  missingAtPartner: number;
  caseIds: string[];
}

export interface Reconciliation {
  listCases(query: CaseQuery): Promise<CasePage>;
  /** Kind `not_found` for an unknown case. */
  getCase(id: string): Promise<CaseRecord>;
  /** Reconciles the event now; kind `unavailable` when the partner cannot be read. */
  reconcileEvent(eventId: string): Promise<EventReportRecord>;
  /** Kind `not_found` before the event's first reconciliation. */
  getEventReport(eventId: string): Promise<EventReportRecord>;
}
