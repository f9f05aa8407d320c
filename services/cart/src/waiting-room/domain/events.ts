/**
 * What the waiting room tells the rest of the platform, recorded with the write that makes it
 * true (the outbox): an on-sale opened behind its queue, a fan let through. Neither names the fan
 * or device.
 */
export type WaitingRoomEvent =
  | {
      kind: 'queue-opened';
      eventId: string;
      opensAt: Date;
      frozenAt: Date;
      earlyCount: number;
    }
  | {
      kind: 'queue-admitted';
      eventId: string;
      ticketId: string;
      appId: string;
      /** The fan's place in admission order, from 1, when known. */
      rank?: number;
      admittedAt: Date;
      waitedMs: number;
    };
