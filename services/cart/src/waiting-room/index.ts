/**
 * The waiting room slice of cart: a fair queue in front of an event's on-sale. Its rules are in
 * `domain/` (order, positions, the admission window, admission tokens), its use cases in `app/`,
 * its storage and token signing in `adapters/`. Cart's reserve path asks `spend` for an admission
 * while an event's queue is on.
 */
import { AdmitTick } from './app/admit.js';
import { ConfigureOnSale } from './app/configure-onsale.js';
import { EarlyRanks } from './app/early-ranks.js';
import { JoinQueue } from './app/join-queue.js';
import { MarkSoldOut } from './app/mark-sold-out.js';
import type { WaitingRoomDeps } from './app/ports.js';
import { ReadQueueTicket } from './app/read-queue-ticket.js';
import { SpendAdmission } from './app/spend-admission.js';

export { createAdmissionSigner } from './adapters/admission-signer.js';
export { createWaitingRoomStorage } from './adapters/stores.js';
export type { WaitingRoomDeps, WaitingRoomSettings } from './app/ports.js';

export const DEFAULT_WAITING_ROOM_SETTINGS = {
  admissionTtlMs: 120_000,
  abandonAfterMs: 90_000,
  admitBatch: 500,
  leaseMs: 5_000,
};

export interface WaitingRoom {
  configure: ConfigureOnSale;
  join: JoinQueue;
  read: ReadQueueTicket;
  /** The admitter of this replica (`owner` names it in the lease). */
  admitter: AdmitTick;
  spend: SpendAdmission;
  soldOut: MarkSoldOut;
}

export function createWaitingRoom(deps: WaitingRoomDeps, owner: string): WaitingRoom {
  const early = new EarlyRanks(deps.onSales);
  return {
    configure: new ConfigureOnSale(deps),
    join: new JoinQueue(deps),
    read: new ReadQueueTicket(deps, early),
    admitter: new AdmitTick(deps, early, owner),
    spend: new SpendAdmission(deps),
    soldOut: new MarkSoldOut(deps),
  };
}
