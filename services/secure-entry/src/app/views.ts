/**
 * What the use cases of secure-entry take and answer beyond the domain records: the order read, the
 * secure render and gate scans, as the ports map them to their wire messages.
 */
import type { EntryOrder, Gate, ScanResult, Ticket } from '../domain/model.js';
import type { RenderRefusal, RenderRequestTicket } from '../domain/render-request.js';

export interface DeviceInput {
  id: string;
  type: string;
  os: string;
}

export interface OrderReadInput {
  orderToken: string;
  appId: string;
  device: DeviceInput;
  thirdPartyAccountId: string;
  sandbox: boolean;
}

export interface TicketView {
  ticket: Ticket;
  /** Empty when `error` is set. */
  token: string;
  error?: { code: number; message: string };
}

export interface OrderView {
  order: EntryOrder;
  tickets: TicketView[];
  tokenAvailableAt?: Date;
}

export interface RenderInput {
  appId: string;
  userId: string;
  device: DeviceInput;
  sandbox: boolean;
  tickets: RenderRequestTicket[];
}

export interface RenderedTicketView {
  request: RenderRequestTicket;
  token: string;
  renderType: string;
  /** The ticket's Apple Wallet pass id (`pkPassIdOf`); empty when refused. */
  pkPassId: string;
  refusal?: RenderRefusal;
}

export interface ScanOutcome {
  result: ScanResult;
  gate: Gate;
  ticket?: Ticket;
  admittedAt?: Date;
  admittedBy?: string;
}
