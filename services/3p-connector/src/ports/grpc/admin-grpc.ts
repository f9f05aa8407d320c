import { unary } from '@marquee/platform/grpc';
import type { GrpcRegistration } from '@marquee/platform/service';
import { partnerV1 } from '@marquee/proto';
import type { PartnerRegistry, PartnerView } from '../../app/registry.js';
import type { QueuedCancel } from '../../domain/cancel-queue.js';
import { healthEnum } from '../../adapters/stores.js';
import { EPOCH } from '../../app/registry.js';

/** A registration as operators see it: never the secret. */
export function toPartnerMessage({ partner, venues }: PartnerView): partnerV1.Partner {
  return {
    id: partner.id,
    name: partner.name,
    baseUrl: partner.baseUrl,
    authUrl: partner.authUrl,
    clientId: partner.clientId,
    venues: venues.map((v) => ({
      venueId: v.venueId,
      watermark: v.watermark.getTime() === EPOCH.getTime() ? undefined : v.watermark,
      lastImportAt: v.lastImportAt ?? undefined,
      lastImportEvents: v.lastImportEvents,
      lastError: v.lastError,
    })),
    health: healthEnum(partner.health),
    createdAt: partner.createdAt,
  };
}

const toQueuedCall = (entry: QueuedCancel): partnerV1.QueuedCall => ({
  id: entry.id,
  partnerId: entry.partnerId,
  operation: partnerV1.PartnerOperation.PARTNER_OPERATION_CANCEL_ORDER,
  inventoryOrderId: entry.inventoryOrderId,
  orderId: entry.orderId,
  attempts: entry.attempts,
  nextAttemptAt: entry.nextAttemptAt,
  lastError: entry.lastError,
  queuedAt: entry.queuedAt,
});

/** `marquee.partner.v1.PartnerAdminService` over the registry. */
export function partnerAdminGrpc(registry: PartnerRegistry): GrpcRegistration {
  const implementation: partnerV1.PartnerAdminServiceServer = {
    registerPartner: unary(async (request: partnerV1.RegisterPartnerRequest) => {
      const partner = await registry.register(request);
      return { id: partner.id };
    }),
    listPartners: unary(async () => ({
      partners: (await registry.list()).map(toPartnerMessage),
    })),
    getPartner: unary(async (request: partnerV1.GetPartnerRequest) => ({
      partner: toPartnerMessage(await registry.get(request.id)),
    })),
    startImport: unary(async (request: partnerV1.StartImportRequest) => ({
      venues: await registry.startImport(request.partnerId, request.venues),
    })),
    listQueuedCalls: unary(async (request: partnerV1.ListQueuedCallsRequest) => ({
      calls: (await registry.queuedCalls(request.partnerId)).map(toQueuedCall),
    })),
  };
  return { definition: partnerV1.PartnerAdminServiceService, implementation };
}
