import { errorKindOf } from '@marquee/platform/kernel';
import type { CartCaller } from './partner-cart.js';
import type { QueuePresenceTracker } from './queue-presence.js';
import { createTicketReads } from './queue-ticket-reads.js';
import type { OnSaleRecord, QueueTicketRecord, WaitingRoomBackend } from './waiting-room.js';

/**
 * Long polls of queue tickets, held at the edge.
 *
 * A fan following its ticket with `wait=<s>` is not one call held open to cart: the edge reads the
 * ticket once (cart answers at once, with the fan's rank), then waits on this replica's watch of
 * the event's on-sale (one `GetOnSale` per event and poll, however many fans wait), and reads the
 * ticket again only once what the fan reads may have changed (`waitingMayEnd`), or once the wait
 * ran out if nothing else keeps the fan in the queue at cart: this replica's presence reports
 * (queue-presence.ts) while cart takes them, else a read {@link UNREAD_ANSWER_MS} ago or less.
 * Holding 10,000 waiting fans then costs 10,000 timers and promises here, and cart sees two calls
 * a second per event, the reads of the fans whose turn came (or that come near it), one report
 * per event every 15 s, and, from a cart that takes no reports, one read per fan every other
 * wait; those reads are batched per event under a bound of calls in flight
 * (queue-ticket-reads.ts), so that a wave (the opening, a sell-out) waking thousands of fans at
 * once is a few dozen calls, not thousands of streams on the HTTP/2 connection.
 */

/** How long a WAITING answer spares the next long poll of the same fan its first read. */
const RECENT_MS = 5_000;

/**
 * A wait that ran out with nothing changed is answered without a read of the ticket (the position
 * and estimate then come from the on-sale as last polled) when cart keeps the fan in the queue
 * without one: cart counts a fan silent for 90 s as gone. While cart takes this replica's presence
 * reports (`QueuePresenceTracker.reported`) they keep it: a polling fan asked at most 25 s (a
 * wait) before each report, a report goes every 15 s and cart's admitter goes by one up to 5 s
 * old, so cart sees the fan at most about 45 s old. Otherwise (a cart of an earlier release, or
 * reports failing) a read keeps it (it refreshes the ticket's `seenAt`, which cart does when 25 s
 * old), and the ticket must have been read less than this long ago: a long-polling fan is then
 * read every other wait, 40 to 50 s apart. When reports stop succeeding, `reported` turns false
 * 30 s after the last one cart took, and the fan's wait under way ends with a read at most 25 s
 * later: cart saw it at most about 80 s old meanwhile.
 */
export const UNREAD_ANSWER_MS = 30_000;

/** The largest estimated wait cart gives (its `MAX_WAIT_ESTIMATE_SECONDS`). */
const MAX_WAIT_ESTIMATE_SECONDS = 2 ** 31 - 1;

/** The longest a long poll waits (the API's largest `wait`). */
export const MAX_WAIT_SECONDS = 25;

/**
 * Whether a fan WAITING at `rank` (undefined before the early joiners were ordered) may read
 * something else from `onSale` now: the queue was turned off, the event sold out, the early order
 * was frozen (the fan gets a rank), or the admitter reached the fan's rank. A fan held back by its
 * app's quota (`heldBackOf`: its app) is reached when its app's `heldBackThrough` is, not
 * `admittedThrough` (which passed it already). The same rule as cart's `waitingMayEnd`
 * (services/cart/src/waiting-room/domain/queue.ts), which owns it.
 */
export function waitingMayEnd(
  onSale: OnSaleRecord,
  rank: number | undefined,
  heldBackOf?: string,
): boolean {
  if (queueEnded(onSale)) return true;
  if (rank === undefined) return onSale.frozenAt !== undefined;
  if (heldBackOf !== undefined) return (onSale.heldBackThrough?.[heldBackOf] ?? 0) >= rank;
  return onSale.admittedThrough >= rank;
}

/** Whether the queue of `onSale` closed or the event sold out: what ends any fan's wait. */
export function queueEnded(onSale: OnSaleRecord): boolean {
  return !onSale.queue || onSale.soldOutAt !== undefined;
}

/**
 * Whether a fan WAITING at `rank` reads SOLD_OUT from `onSale` alone: the event sold out and the
 * fan is ranked above cart's admission horizon, so no admission of it is done or under way. At a
 * sell-out that spares the reads of nearly every waiting fan, which would otherwise all be read
 * at once.
 */
export function soldOutUnread(onSale: OnSaleRecord, rank: number | undefined): boolean {
  const horizon = onSale.admissionHorizon;
  return (
    onSale.queue &&
    onSale.soldOutAt !== undefined &&
    rank !== undefined &&
    horizon !== undefined &&
    rank > horizon
  );
}

/** Waiting on events' on-sales, shared by every fan of an event on this replica. */
export interface OnSaleWatch {
  /**
   * Resolves true once `done` held for a poll of the event's on-sale (the first poll comes
   * `pollMs` after the first waiter), false when `timeoutMs` ran out (up to a fifth early, at
   * random, so that fans who began waiting together do not all come back in the same instant).
   */
  until(
    eventId: string,
    done: (onSale: OnSaleRecord) => boolean,
    timeoutMs: number,
  ): Promise<boolean>;
  /** How many fans wait on the event now. */
  waiting(eventId: string): number;
  /** The event's on-sale as last polled, if that was less than two polls ago. */
  latest(eventId: string): OnSaleRecord | undefined;
  /** Answers every waiter (false) and polls no more. */
  stop(): void;
}

interface Waiter {
  done: (onSale: OnSaleRecord) => boolean;
  resolve: (changed: boolean) => void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * `OnSaleWatch` by polling `read` (cart's `GetOnSale`): while fans of an event wait here, the
 * on-sale is read every `pollMs` (one call for all of them) and each waiter whose condition holds
 * is answered; polling stops with the last waiter. A failed read is reported and retried at the
 * next poll (the waiters' timeouts still answer them); an on-sale gone (not_found) answers them
 * all, so that their next read tells them.
 */
export function createOnSaleWatch(
  read: (eventId: string) => Promise<OnSaleRecord>,
  options: {
    pollMs: number;
    onError: (error: unknown, eventId: string) => void;
    random?: () => number;
  },
): OnSaleWatch {
  const random = options.random ?? Math.random;
  const waiters = new Map<string, Set<Waiter>>();
  const polling = new Map<string, ReturnType<typeof setTimeout>>();
  const polled = new Map<string, { onSale: OnSaleRecord; at: number }>();
  let stopped = false;

  const settle = (eventId: string, waiter: Waiter, changed: boolean) => {
    clearTimeout(waiter.timer);
    const of = waiters.get(eventId);
    of?.delete(waiter);
    if (of?.size === 0) waiters.delete(eventId);
    waiter.resolve(changed);
  };
  const answer = (eventId: string, holds: (waiter: Waiter) => boolean) => {
    for (const waiter of [...(waiters.get(eventId) ?? [])])
      if (holds(waiter)) settle(eventId, waiter, true);
  };

  const poll = async (eventId: string) => {
    polling.delete(eventId);
    if (!waiters.get(eventId)?.size) return;
    try {
      const onSale = await read(eventId);
      polled.set(eventId, { onSale, at: Date.now() });
      answer(eventId, (waiter) => waiter.done(onSale));
    } catch (error) {
      if (errorKindOf(error) === 'not_found') answer(eventId, () => true);
      else options.onError(error, eventId);
    }
    schedule(eventId);
  };

  const schedule = (eventId: string) => {
    if (stopped || polling.has(eventId) || !waiters.get(eventId)?.size) return;
    const timer = setTimeout(() => void poll(eventId), options.pollMs);
    timer.unref?.();
    polling.set(eventId, timer);
  };

  return {
    until(eventId, done, timeoutMs) {
      return new Promise<boolean>((resolve) => {
        if (stopped) return resolve(false);
        let of = waiters.get(eventId);
        if (!of) waiters.set(eventId, (of = new Set()));
        const waiter: Waiter = {
          done,
          resolve,
          timer: setTimeout(
            () => settle(eventId, waiter, false),
            Math.max(0, timeoutMs * (1 - random() * 0.2)),
          ),
        };
        waiter.timer.unref?.();
        of.add(waiter);
        schedule(eventId);
      });
    },
    waiting: (eventId) => waiters.get(eventId)?.size ?? 0,
    latest(eventId) {
      const last = polled.get(eventId);
      return last && Date.now() - last.at < 2 * options.pollMs ? last.onSale : undefined;
    },
    stop() {
      stopped = true;
      for (const timer of polling.values()) clearTimeout(timer);
      polling.clear();
      for (const waiter of [...waiters.values()].flatMap((of) => [...of])) {
        clearTimeout(waiter.timer);
        waiter.resolve(false);
      }
      waiters.clear();
    },
  };
}

/**
 * Follows a queue ticket (`GET /partners/v1/events/{event_id}/queue/{id}?wait=<s>`): the ticket
 * now; with a wait, while it stays WAITING, the answer comes once what the fan reads may have
 * changed (its rank at the opening, its admission, a sell-out, the queue closing) or after the
 * wait. A wake whose new read shows the same rank still WAITING (a cart replica that had not read
 * the change yet) waits again for the rest of the wait.
 */
export class QueueLongPolls {
  readonly #reads: ReturnType<typeof createTicketReads>;
  /** The last WAITING answer per app, event and ticket, oldest first. */
  readonly #recent = new Map<string, { ticket: QueueTicketRecord; at: number }>();
  /** When this replica last read each ticket from cart, per app, event and ticket, oldest first. */
  readonly #readAt = new Map<string, number>();
  readonly #now: () => number;
  readonly #presence: Pick<QueuePresenceTracker, 'seen' | 'reported'> | undefined;

  /**
   * `presence`: the replica's presence reports, told of every WAITING fan that asks; without it a
   * fan is kept in the queue at cart by reads of its ticket alone.
   */
  constructor(
    backend: Pick<WaitingRoomBackend, 'read' | 'readMany'>,
    private readonly watch: Pick<OnSaleWatch, 'until' | 'latest'>,
    options: {
      maxBatch: number;
      batchesInFlight: number;
      now?: () => number;
      presence?: Pick<QueuePresenceTracker, 'seen' | 'reported'>;
    },
  ) {
    this.#reads = createTicketReads(backend, options);
    this.#now = options.now ?? Date.now;
    this.#presence = options.presence;
  }

  async read(
    caller: CartCaller,
    eventId: string,
    ticketId: string,
    waitSeconds = 0,
  ): Promise<QueueTicketRecord> {
    const waitMs = Math.min(Math.max(0, waitSeconds), MAX_WAIT_SECONDS) * 1000;
    const until = this.#now() + waitMs;
    const key = `${caller.appId} ${eventId} ${ticketId}`;
    const read = async () => {
      const fresh = await this.#reads.read(caller, eventId, ticketId);
      this.#wasRead(key);
      return fresh;
    };
    const answer = (answered: QueueTicketRecord) => {
      this.#seen(eventId, answered);
      return this.#answered(key, answered);
    };
    let ticket =
      (waitMs > 0 ? this.#stillWaiting(key, caller.appId, eventId) : undefined) ?? (await read());
    this.#seen(eventId, ticket);
    let stale = false;
    for (;;) {
      const left = until - this.#now();
      if (ticket.status !== 'WAITING' || left <= 0) return answer(ticket);
      const rank = ticket.rank;
      const heldBackOf = ticket.heldBack ? caller.appId : undefined;
      const changed = await this.watch.until(
        eventId,
        (o) => (stale ? queueEnded(o) : waitingMayEnd(o, rank, heldBackOf)),
        left,
      );
      const onSale = changed ? this.watch.latest(eventId) : undefined;
      if (onSale && soldOutUnread(onSale, rank)) {
        const { id, joinedAt } = ticket;
        return answer({ id, eventId, status: 'SOLD_OUT', joinedAt });
      }
      const unread = changed ? undefined : this.#unreadAnswer(key, ticket, eventId);
      if (unread) return answer(unread);
      ticket = await read();
      if (!changed || ticket.rank !== rank) return answer(ticket);
      // Its app's admissions passed a fan still held back (one cart could not admit in order):
      // only the queue's end, or the end of the wait, answers it now, not every poll.
      stale = heldBackOf !== undefined && ticket.heldBack === true;
    }
  }

  /**
   * The WAITING ticket this replica answered the app's fan a moment ago, when the on-sale as
   * last polled shows nothing that ends its wait: a fan long-polling again right after an
   * answer then waits without a read of its ticket (at a wave, such as the freeze, that halves
   * the reads: each fan woken is read once, not once more when it asks again). Its wait still
   * ends with a read, which also tells cart that the fan is still there.
   */
  #stillWaiting(key: string, appId: string, eventId: string): QueueTicketRecord | undefined {
    const last = this.#recent.get(key);
    if (!last || this.#now() - last.at > RECENT_MS) return undefined;
    const onSale = this.watch.latest(eventId);
    const heldBackOf = last.ticket.heldBack ? appId : undefined;
    return onSale && !waitingMayEnd(onSale, last.ticket.rank, heldBackOf) ? last.ticket : undefined;
  }

  /**
   * The answer to a wait that ran out, without a read: the fan's ticket as last answered, its
   * position and estimate worked out as cart works them out (its `viewOf`) from the on-sale as
   * last polled, which shows nothing that ends the wait. Only while cart keeps the fan in the
   * queue without a read (`#keptWithoutRead`), for a fan ranked above cart's admission horizon
   * while cart gives an admission rate, and not for a fan held back by its app's quota (its
   * position counts from its app's admissions).
   */
  #unreadAnswer(
    key: string,
    ticket: QueueTicketRecord,
    eventId: string,
  ): QueueTicketRecord | undefined {
    const { rank } = ticket;
    if (rank === undefined || ticket.heldBack || !this.#keptWithoutRead(key, eventId))
      return undefined;
    const onSale = this.watch.latest(eventId);
    // Within the admission horizon a tick may have admitted the fan (or held it back, or let it
    // go) before recording `admittedThrough`: only a read tells. Above it nothing but the fan's
    // place can have changed (the sell-out shortcut, `soldOutUnread`, stands on the same ground).
    const horizon = onSale?.admissionHorizon;
    if (!onSale || horizon === undefined || rank <= horizon || waitingMayEnd(onSale, rank))
      return undefined;
    // No rate, no estimate to give: and a cart of an earlier release never sends one, while it
    // refreshes `seenAt` only every 45 s, too seldom for a read every other wait.
    const rate = onSale.admissionsPerSecond;
    if (rate === undefined || rate <= 0) return undefined;
    const position = Math.max(1, rank - onSale.admittedThrough);
    const opensIn = Math.max(0, onSale.opensAt.getTime() - this.#now()) / 1000;
    return {
      ...ticket,
      position,
      opensAt: onSale.opensAt,
      estimatedWaitSeconds: Math.min(
        MAX_WAIT_ESTIMATE_SECONDS,
        Math.ceil(opensIn + position / rate),
      ),
    };
  }

  /**
   * Whether cart keeps the fan of `key` in the queue now without a read of its ticket (see
   * {@link UNREAD_ANSWER_MS}): cart took this replica's last presence report of the event, which
   * holds the fan as of its last ask; or, when not (a cart of an earlier release, reports
   * failing), this replica read the ticket less than {@link UNREAD_ANSWER_MS} ago.
   */
  #keptWithoutRead(key: string, eventId: string): boolean {
    if (this.#presence?.reported(eventId)) return true;
    const readAt = this.#readAt.get(key);
    return readAt !== undefined && this.#now() - readAt < UNREAD_ANSWER_MS;
  }

  /** Tells the presence reports that the fan asked for its ticket, while it is WAITING. */
  #seen(eventId: string, ticket: QueueTicketRecord): void {
    if (ticket.status === 'WAITING') this.#presence?.seen(eventId, ticket.id);
  }

  /** Notes a read of the ticket from cart (`#unreadAnswer`), forgetting reads too old to count. */
  #wasRead(key: string): void {
    const now = this.#now();
    for (const [old, at] of this.#readAt) {
      if (now - at < UNREAD_ANSWER_MS) break;
      this.#readAt.delete(old);
    }
    this.#readAt.delete(key);
    this.#readAt.set(key, now);
  }

  /** Keeps a WAITING answer for {@link RECENT_MS} (see `#stillWaiting`). */
  #answered(key: string, ticket: QueueTicketRecord): QueueTicketRecord {
    const now = this.#now();
    for (const [old, { at }] of this.#recent) {
      if (now - at <= RECENT_MS) break;
      this.#recent.delete(old);
    }
    this.#recent.delete(key);
    if (ticket.status === 'WAITING') this.#recent.set(key, { ticket, at: now });
    return ticket;
  }

  /** Calls for tickets under way and reads waiting for a batch now. */
  load(): { calls: number; queued: number } {
    return this.#reads.load();
  }
}
