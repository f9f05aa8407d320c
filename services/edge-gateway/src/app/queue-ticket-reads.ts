import type { CartCaller } from './partner-cart.js';
import type { QueueTicketRecord, WaitingRoomBackend } from './waiting-room.js';

interface Pending {
  appId: string;
  ticketId: string;
  caller: CartCaller;
  resolve: (ticket: QueueTicketRecord) => void;
  reject: (error: unknown) => void;
}

/**
 * Reads of queue tickets, batched per event: at most `batchesInFlight` calls to cart at once, each
 * reading up to `maxBatch` tickets of one event (`GetQueueTickets`, one call and one stream). A read
 * asked while the calls are all under way waits for the next batch of its event, so a quiet room
 * reads each ticket in a call of its own at once, and a wave (the opening's freeze or a sell-out
 * waking thousands of fans, the first asks of every fan at the opening) is read a few hundred
 * tickets per call instead of one call and one stream each. A ticket the batch does not
 * answer (not found, another app's) is read alone, for the error its fan is answered.
 */
export function createTicketReads(
  backend: Pick<WaitingRoomBackend, 'read' | 'readMany'>,
  options: { maxBatch: number; batchesInFlight: number },
) {
  /** Reads waiting for a batch, per event, in arrival order. */
  const pending = new Map<string, Pending[]>();
  let inFlight = 0;

  const send = async (eventId: string, batch: Pending[]) => {
    try {
      const read = await backend.readMany(
        eventId,
        batch.map(({ appId, ticketId }) => ({ appId, ticketId })),
      );
      const byId = new Map(read.map((ticket) => [ticket.id, ticket]));
      for (const one of batch) {
        const ticket = byId.get(one.ticketId);
        if (ticket) one.resolve(ticket);
        else backend.read(one.caller, eventId, one.ticketId).then(one.resolve, one.reject);
      }
    } catch (error) {
      for (const one of batch) one.reject(error);
    }
  };

  const pump = () => {
    for (const [eventId, queue] of pending) {
      if (inFlight >= options.batchesInFlight) return;
      const batch = queue.splice(0, options.maxBatch);
      if (queue.length === 0) pending.delete(eventId);
      inFlight += 1;
      void send(eventId, batch).finally(() => {
        inFlight -= 1;
        pump();
      });
    }
  };

  return {
    read(caller: CartCaller, eventId: string, ticketId: string): Promise<QueueTicketRecord> {
      return new Promise<QueueTicketRecord>((resolve, reject) => {
        let queue = pending.get(eventId);
        if (!queue) pending.set(eventId, (queue = []));
        queue.push({ appId: caller.appId, ticketId, caller, resolve, reject });
        pump();
      });
    },
    /** Calls under way and reads waiting for a batch now. */
    load: () => ({
      calls: inFlight,
      queued: [...pending.values()].reduce((sum, queue) => sum + queue.length, 0),
    }),
  };
}
