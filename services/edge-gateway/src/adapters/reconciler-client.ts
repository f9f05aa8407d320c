import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import {
  CaseTrigger as CaseTriggerMessage,
  Outcome,
  ReconcilerServiceClient,
  type EventReport,
  type ReconciliationCase,
} from '@marquee/proto/reconciliation/v1';
import type {
  CaseOutcome,
  CaseRecord,
  CaseTrigger,
  EventReportRecord,
  Reconciliation,
} from '../app/reconciliation.js';

const TRIGGERS: Record<CaseTriggerMessage, CaseTrigger> = {
  [CaseTriggerMessage.CASE_TRIGGER_UNSPECIFIED]: 'UNSPECIFIED',
  [CaseTriggerMessage.CASE_TRIGGER_PARTNER_CALL_FAILED]: 'PARTNER_CALL_FAILED',
  [CaseTriggerMessage.CASE_TRIGGER_STALE_BOOKING]: 'STALE_BOOKING',
  [CaseTriggerMessage.CASE_TRIGGER_ORDER_MISMATCH]: 'ORDER_MISMATCH',
  [CaseTriggerMessage.CASE_TRIGGER_CAPTURE_WITHOUT_ORDER]: 'CAPTURE_WITHOUT_ORDER',
  [CaseTriggerMessage.CASE_TRIGGER_ORDER_WITHOUT_CAPTURE]: 'ORDER_WITHOUT_CAPTURE',
  [CaseTriggerMessage.UNRECOGNIZED]: 'UNSPECIFIED',
};

const OUTCOMES: Record<Outcome, CaseOutcome> = {
  [Outcome.OUTCOME_UNSPECIFIED]: 'OPEN',
  [Outcome.OUTCOME_CONSISTENT]: 'CONSISTENT',
  [Outcome.OUTCOME_ORDER_CONFIRMED]: 'ORDER_CONFIRMED',
  [Outcome.OUTCOME_ORDER_CANCELLED]: 'ORDER_CANCELLED',
  [Outcome.OUTCOME_BOOKING_RELEASED]: 'BOOKING_RELEASED',
  [Outcome.OUTCOME_MANUAL]: 'MANUAL',
  [Outcome.UNRECOGNIZED]: 'OPEN',
};

const optional = <K extends string>(key: K, value: string) =>
  (value ? { [key]: value } : {}) as Partial<Record<K, string>>;
const optionalDate = <K extends string>(key: K, value: Date | undefined) =>
  (value ? { [key]: value.toISOString() } : {}) as Partial<Record<K, string>>;

export function toCaseRecord(c: ReconciliationCase): CaseRecord {
  return {
    id: c.id,
    partnerId: c.partnerId,
    eventId: c.eventId,
    ...optional('cartId', c.cartId),
    ...optional('orderId', c.orderId),
    ...optional('inventoryToken', c.inventoryToken),
    ...optional('inventoryOrderId', c.inventoryOrderId),
    trigger: TRIGGERS[c.trigger] ?? 'UNSPECIFIED',
    outcome: OUTCOMES[c.outcome] ?? 'OPEN',
    detail: c.detail,
    ...optionalDate('openedAt', c.openedAt),
    ...optionalDate('resolvedAt', c.resolvedAt),
    ...optional('operatorAction', c.operatorAction),
    ...optional('paymentId', c.paymentId),
  };
}

export function toReportRecord(r: EventReport): EventReportRecord {
  return {
    eventId: r.eventId,
    partnerId: r.partnerId,
    ...optionalDate('generatedAt', r.generatedAt),
    ...optionalDate('periodStart', r.periodStart),
    ...optionalDate('periodEnd', r.periodEnd),
    partnerTransactions: r.partnerTransactions,
    platformTransactions: r.platformTransactions,
    matched: r.matched,
    orphansCancelled: r.orphansCancelled,
    missingAtPartner: r.missingAtPartner,
    caseIds: r.caseIds,
  };
}

/** The reconciler's ReconcilerService as the edge's Reconciliation port. Errors arrive as kinds. */
export function createReconcilerClient(
  address: string,
  options: { deadlineMs: number; logger: Logger },
): Reconciliation & { close(): void } {
  const client = createGrpcClient(ReconcilerServiceClient, address, options);
  return {
    async listCases(query) {
      const answer = await callUnary(client, 'listCases', {
        openOnly: query.openOnly,
        partnerId: query.partnerId ?? '',
        page: { offset: query.offset, limit: query.limit },
      });
      return {
        cases: answer.cases.map(toCaseRecord),
        page: answer.page ?? {
          offset: query.offset,
          limit: query.limit,
          total: answer.cases.length,
        },
      };
    },
    async getCase(id) {
      return toCaseRecord((await callUnary(client, 'getCase', { id })).case!);
    },
    async reconcileEvent(eventId) {
      // A run reads the partner's whole period: give it longer than a lookup.
      const answer = await callUnary(client, 'reconcileEvent', { eventId }, { deadlineMs: 60_000 });
      return toReportRecord(answer.report!);
    },
    async getEventReport(eventId) {
      return toReportRecord((await callUnary(client, 'getEventReport', { eventId })).report!);
    },
    close: () => client.close(),
  };
}
