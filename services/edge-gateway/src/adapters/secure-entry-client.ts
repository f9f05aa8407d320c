import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import {
  ScanResult as ScanResultMessage,
  SecureEntryServiceClient,
  type Gate,
  type GetOrderResponse,
  type SecureTicket,
} from '@marquee/proto/entry/v1';
import type {
  EntryOrder,
  EntryTicket,
  GateRecord,
  ScanResult,
  SecureEntryBackend,
} from '../app/secure-entry.js';

const iso = (date: Date | undefined) => date?.toISOString();

const toGate = (gate: Gate | undefined): GateRecord => ({
  id: gate?.id ?? '',
  name: gate?.name ?? '',
  eventId: gate?.eventId ?? '',
  ...(gate?.createdAt ? { createdAt: gate.createdAt.toISOString() } : {}),
  ...(gate?.revokedAt ? { revokedAt: gate.revokedAt.toISOString() } : {}),
});

const toScanResult = (result: ScanResultMessage): ScanResult =>
  result === ScanResultMessage.SCAN_RESULT_UNSPECIFIED || result === ScanResultMessage.UNRECOGNIZED
    ? 'FORGED'
    : (result.replace(/^SCAN_RESULT_/, '') as ScanResult);

const toEntryTicket = (t: SecureTicket): EntryTicket => ({
  ticketId: t.ticketId,
  partnerTicketId: t.partnerTicketId,
  barcodeId: t.barcodeId,
  displayId: t.displayId,
  eventId: t.eventId,
  section: t.section,
  row: t.row,
  seat: t.seat,
  generalAdmission: t.generalAdmission,
  voided: t.voided,
  token: t.token,
  renderType: t.renderType,
  segmentType: t.segmentType,
  charges: t.charges.map((c) => ({
    description: c.description,
    type: c.type,
    subType: c.subType,
    amountMinor: Number(c.amount?.amountMinor ?? 0),
    currency: c.amount?.currency ?? '',
  })),
  errorCode: t.errorCode,
  errorMessage: t.errorMessage,
});

const toEntryOrder = (o: GetOrderResponse): EntryOrder => ({
  orderId: o.orderId,
  orderNumber: o.orderNumber,
  ...(o.orderedAt ? { orderedAt: o.orderedAt.toISOString() } : {}),
  voided: o.voided,
  ...(o.tokenAvailableAt ? { tokenAvailableAt: iso(o.tokenAvailableAt)! } : {}),
  customerEmail: o.customerEmail,
  thirdPartyAccountId: o.thirdPartyAccountId,
  delivery: {
    carrier: o.delivery?.carrier ?? '',
    serviceLevel: o.delivery?.serviceLevel ?? '',
    description: o.delivery?.description ?? '',
  },
  deviceId: o.deviceId,
  deviceType: o.deviceType,
  deviceOs: o.deviceOs,
  tickets: o.tickets.map(toEntryTicket),
});

/** secure-entry's SecureEntryService as the edge's SecureEntryBackend port. Errors arrive as kinds. */
export function createSecureEntryClient(
  address: string,
  options: { deadlineMs: number; logger: Logger },
): SecureEntryBackend & { close(): void } {
  const client = createGrpcClient(SecureEntryServiceClient, address, options);
  return {
    async readOrder(request) {
      return toEntryOrder(await callUnary(client, 'getOrder', request));
    },
    async secureRender(request) {
      const { tickets } = await callUnary(client, 'secureRender', request);
      return tickets.map((t) => ({
        ticket: {
          eventId: t.ticket?.eventId ?? '',
          section: t.ticket?.section ?? '',
          row: t.ticket?.row ?? '',
          seat: t.ticket?.seat ?? '',
          barcode: t.ticket?.barcode ?? '',
        },
        token: t.token,
        renderType: t.renderType,
        pkPassId: t.pkPassId,
        errorCode: t.errorCode,
        error: t.error,
      }));
    },
    async validateScan(gateToken, payload) {
      const r = await callUnary(client, 'validateScan', { gateToken, payload });
      return {
        result: toScanResult(r.result),
        gateId: r.gateId,
        eventId: r.eventId,
        ticketId: r.ticketId,
        displayId: r.displayId,
        section: r.section,
        row: r.row,
        seat: r.seat,
        ...(r.admittedAt ? { admittedAt: r.admittedAt.toISOString() } : {}),
        admittedByGateId: r.admittedByGateId,
      };
    },
    async createGate(input) {
      const { gate, token } = await callUnary(client, 'createGate', input);
      return { gate: toGate(gate), token };
    },
    async listGates(eventId) {
      const { gates } = await callUnary(client, 'listGates', { eventId: eventId ?? '' });
      return gates.map(toGate);
    },
    async revokeGate(id) {
      return toGate((await callUnary(client, 'revokeGate', { id })).gate);
    },
    close: () => client.close(),
  };
}
