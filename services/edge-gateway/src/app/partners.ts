/**
 * The edge's port to partner administration (3p-connector's PartnerAdminService), in the admin
 * API's own terms. Implemented by adapters/partner-admin-client.ts over gRPC and by fakes in tests.
 * Secrets go in (registration) and never come out.
 */

export interface NewPartner {
  name: string;
  baseUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: string;
  venues: string[];
}

export type PartnerHealth =
  'UNCHECKED' | 'HEALTHY' | 'UNAVAILABLE' | 'SYNC_REQUIRED' | 'UNREACHABLE' | 'UNAUTHORIZED';

export interface VenueImportState {
  venueId: string;
  /** ISO date-time of the import watermark; absent before the first import. */
  watermark?: string;
  lastImportAt?: string;
  lastImportEvents: number;
  /** Absent when the last import succeeded. */
  lastError?: string;
}

export interface PartnerRecord {
  id: string;
  name: string;
  baseUrl: string;
  authUrl: string;
  clientId: string;
  venues: VenueImportState[];
  health: PartnerHealth;
  createdAt?: string;
}

export interface QueuedPartnerCall {
  id: string;
  partnerId: string;
  /** The operation retried (a cancel, `CANCEL_ORDER`). */
  operation: string;
  inventoryOrderId: string;
  orderId: string;
  attempts: number;
  nextAttemptAt?: string;
  lastError?: string;
  queuedAt?: string;
}

export interface PartnerAdmin {
  /** Registers the partner and starts an import of its venues; resolves the registration id. */
  registerPartner(input: NewPartner): Promise<{ id: string }>;
  listPartners(): Promise<PartnerRecord[]>;
  /** Kind `not_found` for an unknown id. */
  getPartner(id: string): Promise<PartnerRecord>;
  /** Imports now (all registered venues when `venues` is empty); resolves the venues imported. */
  startImport(partnerId: string, venues: string[]): Promise<{ venues: string[] }>;
  listQueuedCalls(partnerId?: string): Promise<QueuedPartnerCall[]>;
}
