import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import {
  PartnerAdminServiceClient,
  PartnerHealth as PartnerHealthMessage,
  PartnerOperation,
  type Partner,
  type QueuedCall,
} from '@marquee/proto/partner/v1';
import type {
  PartnerAdmin,
  PartnerHealth,
  PartnerRecord,
  QueuedPartnerCall,
} from '../app/partners.js';

const HEALTH: Record<PartnerHealthMessage, PartnerHealth> = {
  [PartnerHealthMessage.PARTNER_HEALTH_UNSPECIFIED]: 'UNCHECKED',
  [PartnerHealthMessage.PARTNER_HEALTH_HEALTHY]: 'HEALTHY',
  [PartnerHealthMessage.PARTNER_HEALTH_UNAVAILABLE]: 'UNAVAILABLE',
  [PartnerHealthMessage.PARTNER_HEALTH_SYNC_REQUIRED]: 'SYNC_REQUIRED',
  [PartnerHealthMessage.PARTNER_HEALTH_UNREACHABLE]: 'UNREACHABLE',
  [PartnerHealthMessage.PARTNER_HEALTH_UNAUTHORIZED]: 'UNAUTHORIZED',
  [PartnerHealthMessage.UNRECOGNIZED]: 'UNCHECKED',
};

export function toPartnerRecord(p: Partner): PartnerRecord {
  return {
    id: p.id,
    name: p.name,
    baseUrl: p.baseUrl,
    authUrl: p.authUrl,
    clientId: p.clientId,
    venues: p.venues.map((v) => ({
      venueId: v.venueId,
      ...(v.watermark ? { watermark: v.watermark.toISOString() } : {}),
      ...(v.lastImportAt ? { lastImportAt: v.lastImportAt.toISOString() } : {}),
      lastImportEvents: v.lastImportEvents,
      ...(v.lastError ? { lastError: v.lastError } : {}),
    })),
    health: HEALTH[p.health] ?? 'UNCHECKED',
    ...(p.createdAt ? { createdAt: p.createdAt.toISOString() } : {}),
  };
}

export function toQueuedCall(c: QueuedCall): QueuedPartnerCall {
  return {
    id: c.id,
    partnerId: c.partnerId,
    operation:
      c.operation === PartnerOperation.UNRECOGNIZED
        ? 'UNSPECIFIED'
        : c.operation.replace(/^PARTNER_OPERATION_/, ''),
    inventoryOrderId: c.inventoryOrderId,
    orderId: c.orderId,
    attempts: c.attempts,
    ...(c.nextAttemptAt ? { nextAttemptAt: c.nextAttemptAt.toISOString() } : {}),
    ...(c.lastError ? { lastError: c.lastError } : {}),
    ...(c.queuedAt ? { queuedAt: c.queuedAt.toISOString() } : {}),
  };
}

/** 3p-connector's PartnerAdminService as the edge's PartnerAdmin port. Errors arrive as kinds. */
export function createPartnerAdminClient(
  address: string,
  options: { deadlineMs: number; logger: Logger },
): PartnerAdmin & { close(): void } {
  const client = createGrpcClient(PartnerAdminServiceClient, address, options);
  return {
    async registerPartner(input) {
      const { id } = await callUnary(client, 'registerPartner', input);
      return { id };
    },
    async listPartners() {
      const { partners } = await callUnary(client, 'listPartners', {});
      return partners.map(toPartnerRecord);
    },
    async getPartner(id) {
      return toPartnerRecord((await callUnary(client, 'getPartner', { id })).partner!);
    },
    async startImport(partnerId, venues) {
      const answer = await callUnary(client, 'startImport', { partnerId, venues });
      return { venues: answer.venues };
    },
    async listQueuedCalls(partnerId) {
      const { calls } = await callUnary(client, 'listQueuedCalls', { partnerId: partnerId ?? '' });
      return calls.map(toQueuedCall);
    },
    close: () => client.close(),
  };
}
