import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
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

type Handler<Req, Res> = (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void;

/** Runs a use case and answers through the callback (the platform's server maps error kinds). */
function unary<Req, Res>(run: (request: Req) => Promise<Res> | Res): Handler<Req, Res> {
  return (call, callback) => {
    Promise.resolve()
      .then(() => run(call.request))
      .then(
        (response) => callback(null, response),
        (error: unknown) => callback(error as Error),
      );
  };
}

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
