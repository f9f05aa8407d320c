import { backoffMs } from '@marquee/platform/kernel';
/** A cancel the partner has not taken yet, retried until it is accepted (collection `queued_calls`). */
export interface QueuedCancel {
  /** Deterministic per partner and inventory order: the same cancel queued twice is one entry. */
  id: string;
  version: number;
  partnerId: string;
  eventId: string;
  inventoryOrderId: string;
  orderId: string;
  language: string;
  channelType: string;
  attempts: number;
  nextAttemptAt: Date;
  lastError: string;
  queuedAt: Date;
  /** Set while a worker sends an attempt; a claim older than the lease may be taken over. */
  claimedUntil: Date | null;
}

export const queuedCancelId = (partnerId: string, inventoryOrderId: string): string =>
  `cancel/${partnerId}/${inventoryOrderId}`;

export const FIRST_RETRY_MS = 1_000;

/** Delay before attempt `attempts + 1`: 1 s after the first failure, doubling, at most `maxMs`. */
export function cancelBackoffMs(attempts: number, maxMs: number): number {
  return backoffMs(attempts, { firstMs: FIRST_RETRY_MS, maxMs });
}
