import { unary } from '@marquee/platform/grpc';
import type { GrpcRegistration } from '@marquee/platform/service';
import {
  ReconcilerServiceService,
  type GetCaseRequest,
  type GetEventReportRequest,
  type ListCasesRequest,
  type ListCasesResponse,
  type ReconcileEventRequest,
} from '@marquee/proto/reconciliation/v1';
import { toCaseMessage, toReportMessage } from '../../adapters/case-message.js';
import type { ReconcilerApp } from '../../app/reconciler-app.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

/** marquee.reconciliation.v1.ReconcilerService: maps messages and delegates to the app. */
export function reconcilerGrpc(app: ReconcilerApp): GrpcRegistration {
  return {
    definition: ReconcilerServiceService,
    implementation: {
      getCase: unary(async (r: GetCaseRequest) => ({
        case: toCaseMessage(await app.getCase(r.id)),
      })),
      listCases: unary(async (r: ListCasesRequest): Promise<ListCasesResponse> => {
        const offset = r.page?.offset ?? 0;
        const limit = Math.min(r.page?.limit || DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
        const { cases, total } = await app.listCases({
          openOnly: r.openOnly,
          ...(r.partnerId ? { partnerId: r.partnerId } : {}),
          offset,
          limit,
        });
        return { cases: cases.map(toCaseMessage), page: { offset, limit, total } };
      }),
      reconcileEvent: unary(async (r: ReconcileEventRequest) => ({
        report: toReportMessage(await app.reconcileEvent(r.eventId)),
      })),
      getEventReport: unary(async (r: GetEventReportRequest) => ({
        report: toReportMessage(await app.getEventReport(r.eventId)),
      })),
    },
  };
}
