import { AdmitTick } from './admit.js';
import { ConfigureOnSale } from './configure-onsale.js';
import { EarlyRanks } from './early-ranks.js';
import { JoinQueue } from './join-queue.js';
import { MarkSoldOut } from './mark-sold-out.js';
import type { WaitingRoomDeps } from './ports.js';
import { ReadOnSale } from './read-onsale.js';
import { ReadQueueTicket } from './read-queue-ticket.js';
import { ReportPresence } from './report-presence.js';
import { SpendAdmission } from './spend-admission.js';

export const DEFAULT_WAITING_ROOM_SETTINGS = {
  admissionTtlMs: 120_000,
  abandonAfterMs: 90_000,
  admitBatch: 500,
  leaseMs: 5_000,
};

/** The waiting room's use cases, composed over one set of ports. */
export interface WaitingRoom {
  configure: ConfigureOnSale;
  join: JoinQueue;
  read: ReadQueueTicket;
  /** The fans an edge replica holds long polls for (what keeps them in the queue). */
  presence: ReportPresence;
  /** The on-sale as the watch last read it (the edge's long polls). */
  onSale: ReadOnSale;
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
    presence: new ReportPresence(deps),
    onSale: new ReadOnSale(deps),
    admitter: new AdmitTick(deps, early, owner),
    spend: new SpendAdmission(deps),
    soldOut: new MarkSoldOut(deps),
  };
}
