import type { OnSaleRecord, OnSaleRepository, OnSaleWatch, Stored } from '../app/ports.js';
import type { OnSale } from '../domain/queue.js';

type Read = Stored<OnSaleRecord> | undefined;

/**
 * Past this many remembered reads, those older than `freshMs` are dropped: event ids come from
 * callers (a join names any event), so what is remembered must not grow with them.
 */
const REMEMBERED_MAX = 10_000;

/**
 * Reads of on-sales shared by their callers: one read under way per event, whoever asks, and
 * `latest` answers a read less than `freshMs` old without reading again.
 */
function sharedReads(onSales: Pick<OnSaleRepository, 'get'>, freshMs: number) {
  const lastRead = new Map<string, { onSale: Read; at: number }>();
  const reading = new Map<string, Promise<Read>>();
  const read = (eventId: string): Promise<Read> => {
    let pending = reading.get(eventId);
    if (!pending) {
      pending = onSales.get(eventId).then((onSale) => {
        const at = Date.now();
        if (lastRead.size >= REMEMBERED_MAX)
          for (const [id, known] of lastRead) if (at - known.at >= freshMs) lastRead.delete(id);
        lastRead.set(eventId, { onSale, at });
        return onSale;
      });
      const shared = pending;
      void shared.then(
        () => reading.delete(eventId),
        () => reading.delete(eventId),
      );
      reading.set(eventId, shared);
    }
    return pending;
  };
  return {
    read,
    latest: async (eventId: string): Promise<Read> => {
      const known = lastRead.get(eventId);
      if (known && Date.now() - known.at < freshMs) return known.onSale;
      return read(eventId);
    },
    forget: (eventId: string): void => {
      lastRead.delete(eventId);
    },
    /** How many reads are remembered (for tests). */
    remembered: (): number => lastRead.size,
  };
}

interface Waiter {
  done: (onSale: OnSale) => boolean;
  resolve: (changed: boolean) => void;
  timer: NodeJS.Timeout;
}

/**
 * `OnSaleWatch` by polling: while fans of an event wait on this replica, its on-sale is read once
 * every `pollMs` (one read for all of them, however many) and every waiter whose condition holds
 * is answered. With the admitter writing `admittedThrough` and `soldOutAt` to the on-sale, a
 * waiting fan hears of its admission or a sell-out within about `pollMs` of the admitter's tick,
 * at a cost of one read per event and poll instead of one per fan. `latest` answers from the same
 * reads: an on-sale read less than `pollMs` ago, or the read under way.
 */
export function createOnSaleWatch(
  onSales: Pick<OnSaleRepository, 'get'>,
  options: { pollMs: number; onError: (error: unknown) => void },
): OnSaleWatch & { stop(): void; remembered(): number } {
  const waiting = new Map<string, Set<Waiter>>();
  const polling = new Map<string, NodeJS.Timeout>();
  const { read, latest, forget, remembered } = sharedReads(onSales, options.pollMs);

  const settle = (eventId: string, waiter: Waiter, changed: boolean) => {
    clearTimeout(waiter.timer);
    waiting.get(eventId)?.delete(waiter);
    waiter.resolve(changed);
  };

  const poll = async (eventId: string) => {
    polling.delete(eventId);
    const waiters = waiting.get(eventId);
    if (!waiters || waiters.size === 0) {
      waiting.delete(eventId);
      return;
    }
    try {
      const onSale = await read(eventId);
      for (const waiter of [...waiters])
        if (!onSale || waiter.done(onSale)) settle(eventId, waiter, true);
    } catch (error) {
      options.onError(error);
    }
    schedule(eventId);
  };

  const schedule = (eventId: string) => {
    if (polling.has(eventId) || !waiting.get(eventId)?.size) return;
    const timer = setTimeout(() => void poll(eventId), options.pollMs);
    timer.unref();
    polling.set(eventId, timer);
  };

  return {
    latest,
    forget,
    remembered,
    until(eventId, done, timeoutMs) {
      return new Promise<boolean>((resolve) => {
        let waiters = waiting.get(eventId);
        if (!waiters) waiting.set(eventId, (waiters = new Set()));
        const waiter: Waiter = {
          done,
          resolve,
          // Up to a fifth shorter at random: fans who began waiting together (at the opening)
          // do not all come back for their tickets in the same instant.
          timer: setTimeout(
            () => settle(eventId, waiter, false),
            Math.max(0, timeoutMs * (1 - Math.random() * 0.2)),
          ),
        };
        waiter.timer.unref();
        waiters.add(waiter);
        schedule(eventId);
      });
    },
    stop() {
      for (const timer of polling.values()) clearTimeout(timer);
      polling.clear();
      for (const [eventId, waiters] of waiting)
        for (const waiter of [...waiters]) settle(eventId, waiter, false);
    },
  };
}
