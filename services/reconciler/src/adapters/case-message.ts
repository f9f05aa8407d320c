import {
  CaseTrigger as CaseTriggerMessage,
  Outcome,
  type EventReport as EventReportMessage,
  type ReconciliationCase as CaseMessage,
} from '@marquee/proto/reconciliation/v1';
import type { CaseOutcome, CaseTrigger, ReconciliationCase } from '../domain/case.js';
import type { EventReport } from '../domain/report.js';

const TRIGGERS: Record<CaseTrigger, CaseTriggerMessage> = {
  PARTNER_CALL_FAILED: CaseTriggerMessage.CASE_TRIGGER_PARTNER_CALL_FAILED,
  STALE_BOOKING: CaseTriggerMessage.CASE_TRIGGER_STALE_BOOKING,
  ORDER_MISMATCH: CaseTriggerMessage.CASE_TRIGGER_ORDER_MISMATCH,
  CAPTURE_WITHOUT_ORDER: CaseTriggerMessage.CASE_TRIGGER_CAPTURE_WITHOUT_ORDER,
  ORDER_WITHOUT_CAPTURE: CaseTriggerMessage.CASE_TRIGGER_ORDER_WITHOUT_CAPTURE,
};

const OUTCOMES: Record<CaseOutcome, Outcome> = {
  OPEN: Outcome.OUTCOME_UNSPECIFIED,
  CONSISTENT: Outcome.OUTCOME_CONSISTENT,
  ORDER_CONFIRMED: Outcome.OUTCOME_ORDER_CONFIRMED,
  ORDER_CANCELLED: Outcome.OUTCOME_ORDER_CANCELLED,
  BOOKING_RELEASED: Outcome.OUTCOME_BOOKING_RELEASED,
  MANUAL: Outcome.OUTCOME_MANUAL,
};

/** A case as the contract carries it (gRPC answers and `reconciliation-resolved`). */
export function toCaseMessage(c: ReconciliationCase): CaseMessage {
  return {
    id: c.id,
    partnerId: c.partnerId,
    eventId: c.eventId,
    cartId: c.cartId ?? '',
    orderId: c.orderId ?? '',
    inventoryToken: c.inventoryToken ?? '',
    inventoryOrderId: c.inventoryOrderId ?? '',
    trigger: TRIGGERS[c.trigger],
    outcome: OUTCOMES[c.outcome],
    detail: c.detail,
    openedAt: c.openedAt,
    resolvedAt: c.open ? undefined : c.resolvedAt,
    operatorAction: c.operatorAction ?? '',
    paymentId: c.paymentId ?? '',
  };
}

export function toReportMessage(r: EventReport): EventReportMessage {
  return {
    eventId: r.eventId,
    partnerId: r.partnerId,
    generatedAt: r.generatedAt,
    periodStart: r.periodStart,
    periodEnd: r.periodEnd,
    partnerTransactions: r.partnerTransactions,
    platformTransactions: r.platformTransactions,
    matched: r.matched,
    orphansCancelled: r.orphansCancelled,
    missingAtPartner: r.missingAtPartner,
    caseIds: r.caseIds,
  };
}
