import { catalogV1, partnerV1 } from '@marquee/proto';
import type { AvailabilitySnapshot } from '../../domain/availability.js';
import type { CallFailure, PartnerOperation } from '../../domain/call-failure.js';

const SCOPES: Record<AvailabilitySnapshot['scope'], catalogV1.SyncScope> = {
  FULL: catalogV1.SyncScope.SYNC_SCOPE_FULL,
  PARTIAL: catalogV1.SyncScope.SYNC_SCOPE_PARTIAL,
};

const OPERATIONS: Record<PartnerOperation, partnerV1.PartnerOperation> = {
  CREATE_BOOKING: partnerV1.PartnerOperation.PARTNER_OPERATION_CREATE_BOOKING,
  CREATE_ORDER: partnerV1.PartnerOperation.PARTNER_OPERATION_CREATE_ORDER,
  CANCEL_ORDER: partnerV1.PartnerOperation.PARTNER_OPERATION_CANCEL_ORDER,
};

/** An availability read as `availability-changed` carries it. */
export function toAvailabilityChanged(
  snapshot: AvailabilitySnapshot,
): catalogV1.AvailabilityChanged {
  return {
    eventId: snapshot.eventId,
    partnerId: snapshot.partnerId,
    partnerEventId: snapshot.partnerEventId,
    scope: SCOPES[snapshot.scope],
    areas: snapshot.areas.map((area) => ({
      ...area,
      availableSeats: area.availableSeats.map((seat) => ({ ...seat })),
    })),
    totalAvailable: snapshot.totalAvailable,
    observedAt: snapshot.observedAt,
    sequence: snapshot.sequence,
  };
}

/** A failed partner call as `partner-call-failed` carries it. */
export function toPartnerCallFailed(failure: CallFailure): partnerV1.PartnerCallFailed {
  return { ...failure, operation: OPERATIONS[failure.operation] };
}
