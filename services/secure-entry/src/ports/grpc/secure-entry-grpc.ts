import { unary } from '@marquee/platform/grpc';
import { metrics } from '@marquee/platform/metrics';
import type { GrpcRegistration } from '@marquee/platform/service';
import { entryV1 } from '@marquee/proto';
import type { SecureEntry } from '../../app/secure-entry.js';
import type { OrderView, ScanOutcome } from '../../app/views.js';
import type { Gate, Ticket } from '../../domain/model.js';
import { scanResultEnum } from '../../adapters/stores.js';

/** Gate scans by result (`admitted`, `already_admitted`, `forged`, …), as the gate was answered. */
const gateScans = metrics.counter('marquee_gate_scans', {
  description: 'Gate scans validated, by result',
});

const gateMessage = (gate: Gate): entryV1.Gate => ({
  id: gate.id,
  name: gate.name,
  eventId: gate.eventId,
  createdAt: gate.createdAt,
  revokedAt: gate.revokedAt,
});

function orderResponse(view: OrderView): entryV1.GetOrderResponse {
  const { order } = view;
  return {
    orderId: order.id,
    voided: order.voided,
    tokenAvailableAt: view.tokenAvailableAt,
    customerEmail: order.customerEmail,
    thirdPartyAccountId: order.thirdPartyAccountId,
    delivery: {
      id: order.delivery.id,
      carrier: order.delivery.carrier,
      serviceLevel: order.delivery.serviceLevel,
      description: order.delivery.description,
    },
    orderNumber: order.id,
    orderedAt: order.confirmedAt,
    deviceId: order.device?.id ?? '',
    deviceType: order.device?.type ?? '',
    deviceOs: order.device?.os ?? '',
    sandbox: order.sandbox,
    tickets: view.tickets.map(({ ticket, token, error }) => ({
      ...ticketFields(ticket),
      voided: ticket.status === 'voided',
      token,
      renderType: ticket.renderType,
      segmentType: ticket.renderType === 'rotating_symbology' ? 'ROTATING_SYMBOLOGY' : 'BARCODE',
      charges: ticket.charges.map((c) => ({
        description: c.description,
        type: c.type,
        subType: c.subType,
        amount: { amountMinor: c.amountMinor, currency: c.currency },
      })),
      errorCode: error?.code ?? 0,
      errorMessage: error?.message ?? '',
    })),
  };
}

const ticketFields = (ticket: Ticket) => ({
  ticketId: ticket.id,
  partnerTicketId: ticket.partnerTicketId,
  barcodeId: ticket.barcode,
  displayId: ticket.displayId,
  eventId: ticket.eventId,
  section: ticket.section,
  row: ticket.row,
  seat: ticket.seat,
  generalAdmission: ticket.generalAdmission,
});

function scanResponse(outcome: ScanOutcome): entryV1.ValidateScanResponse {
  return {
    result: scanResultEnum(outcome.result),
    ticketId: outcome.ticket?.id ?? '',
    displayId: outcome.ticket?.displayId ?? '',
    section: outcome.ticket?.section ?? '',
    row: outcome.ticket?.row ?? '',
    seat: outcome.ticket?.seat ?? '',
    admittedAt: outcome.admittedAt,
    admittedByGateId: outcome.admittedBy ?? '',
    gateId: outcome.gate.id,
    eventId: outcome.gate.eventId,
  };
}

/** `marquee.entry.v1.SecureEntryService` over the use cases. */
export function secureEntryGrpc(entry: SecureEntry): GrpcRegistration {
  const implementation: entryV1.SecureEntryServiceServer = {
    getOrder: unary(async (request: entryV1.GetOrderRequest) =>
      orderResponse(
        await entry.getOrder({
          orderToken: request.orderToken,
          appId: request.appId,
          device: { id: request.deviceId, type: request.deviceType, os: request.deviceOs },
          thirdPartyAccountId: request.thirdPartyAccountId,
          sandbox: request.sandbox,
        }),
      ),
    ),
    secureRender: unary(async (request: entryV1.SecureRenderRequest) => {
      const rendered = await entry.secureRender({
        appId: request.appId,
        userId: request.userId,
        device: { id: request.deviceId, type: request.deviceType, os: request.deviceOs },
        sandbox: request.sandbox,
        tickets: request.tickets.map((t) => ({
          eventId: t.eventId,
          section: t.section,
          row: t.row,
          seat: t.seat,
          barcode: t.barcode,
        })),
      });
      return {
        tickets: rendered.map((r) => ({
          ticket: r.request,
          token: r.token,
          renderType: r.renderType,
          pkPassId: r.pkPassId,
          errorCode: r.refusal?.code ?? 0,
          error: r.refusal?.error ?? '',
        })),
      };
    }),
    validateScan: unary(async (request: entryV1.ValidateScanRequest) => {
      const outcome = await entry.validateScan(request.gateToken, request.payload);
      gateScans.add(1, { result: outcome.result.toLowerCase() });
      return scanResponse(outcome);
    }),
    createGate: unary(async (request: entryV1.CreateGateRequest) => {
      const { gate, token } = await entry.createGate(request);
      return { gate: gateMessage(gate), token };
    }),
    listGates: unary(async (request: entryV1.ListGatesRequest) => ({
      gates: (await entry.listGates(request.eventId)).map(gateMessage),
    })),
    revokeGate: unary(async (request: entryV1.RevokeGateRequest) => ({
      gate: gateMessage(await entry.revokeGate(request.id)),
    })),
    listAdmittedSeats: unary(async (request: entryV1.ListAdmittedSeatsRequest) => ({
      seats: (await entry.admittedSeats(request.eventId, request.partnerTicketIds)).map((a) => ({
        partnerTicketId: a.partnerTicketId ?? '',
        ticketId: a.ticketId,
        admittedAt: a.admittedAt,
      })),
    })),
  };
  return { definition: entryV1.SecureEntryServiceService, implementation };
}
