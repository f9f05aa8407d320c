/**
 * The edge's port to secure-entry (SecureEntryService): the secure-entry order read, secure render,
 * gate scans and gate administration, in the edge's terms. Implemented over gRPC by
 * adapters/secure-entry-client.ts and by fakes in tests. Tokens and order tokens pass through and
 * are never logged.
 */

export interface DeviceIdentity {
  deviceId: string;
  deviceType: string;
  deviceOs: string;
}

export interface OrderReadRequest extends DeviceIdentity {
  orderToken: string;
  appId: string;
  thirdPartyAccountId: string;
  sandbox: boolean;
}

export interface EntryCharge {
  description: string;
  type: string;
  subType: string;
  amountMinor: number;
  currency: string;
}

export interface EntryTicket {
  ticketId: string;
  partnerTicketId: string;
  barcodeId: string;
  displayId: string;
  eventId: string;
  section: string;
  row: string;
  seat: string;
  generalAdmission: boolean;
  voided: boolean;
  token: string;
  renderType: string;
  segmentType: string;
  charges: EntryCharge[];
  /** 0 = token present. */
  errorCode: number;
  errorMessage: string;
}

export interface EntryOrder {
  orderId: string;
  orderNumber: string;
  orderedAt?: string;
  voided: boolean;
  tokenAvailableAt?: string;
  customerEmail: string;
  thirdPartyAccountId: string;
  delivery: { carrier: string; serviceLevel: string; description: string };
  deviceId: string;
  deviceType: string;
  deviceOs: string;
  tickets: EntryTicket[];
}

export interface RenderTicketRequest {
  eventId: string;
  section: string;
  row: string;
  seat: string;
  barcode: string;
}

export interface RenderRequest extends DeviceIdentity {
  appId: string;
  userId: string;
  userAgent: string;
  sandbox: boolean;
  tickets: RenderTicketRequest[];
}

export interface RenderedEntryTicket {
  ticket: RenderTicketRequest;
  token: string;
  renderType: string;
  /** The ticket's Apple Wallet pass id, stable per ticket; empty when refused. */
  pkPassId: string;
  /** 0 = rendered. */
  errorCode: number;
  error: string;
}

export type ScanResult =
  | 'ADMITTED'
  | 'REPLAYED'
  | 'ALREADY_ADMITTED'
  | 'VOIDED'
  | 'WRONG_EVENT'
  | 'FORGED'
  | 'EXPIRED'
  | 'SUPERSEDED'
  | 'SANDBOX';

export interface ScanAnswer {
  result: ScanResult;
  gateId: string;
  eventId: string;
  ticketId: string;
  displayId: string;
  section: string;
  row: string;
  seat: string;
  admittedAt?: string;
  admittedByGateId: string;
}

export interface GateRecord {
  id: string;
  name: string;
  eventId: string;
  createdAt?: string;
  revokedAt?: string;
}

export interface SecureEntryBackend {
  /** Kinds: `not_found` (details.reason order_not_found), `permission_denied` (account_mismatch, device_not_bound). */
  readOrder(request: OrderReadRequest): Promise<EntryOrder>;
  /** Per-ticket problems are in the answer, never thrown. */
  secureRender(request: RenderRequest): Promise<RenderedEntryTicket[]>;
  /** Kind `unauthenticated` for an unknown or revoked gate token. */
  validateScan(gateToken: string, payload: string): Promise<ScanAnswer>;
  createGate(input: {
    name: string;
    eventId: string;
  }): Promise<{ gate: GateRecord; token: string }>;
  listGates(eventId?: string): Promise<GateRecord[]>;
  /** Kind `not_found` for an unknown gate. */
  revokeGate(id: string): Promise<GateRecord>;
}
