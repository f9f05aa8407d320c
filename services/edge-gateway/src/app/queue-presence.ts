import { MAX_PRESENCE_FANS, type WaitingRoomBackend } from './waiting-room.js';

/**
 * Presence reports of the fans waiting at this replica.
 *
 * Cart counts a waiting fan as gone when it has not been seen for 90 s. A read of the fan's ticket
 * sees it (and writes its `seenAt`); so does this replica's report of the event's fans, which
 * tells cart when each fan last asked here, for all of them in one call. Every
 * {@link PRESENCE_REPORT_MS} each event with fans here is reported (`ReportQueuePresence`, under
 * this replica's `reporter` id: each report replaces the last), so that the long polls need not
 * read a fan's ticket only to keep it in the queue (queue-long-polls.ts, `#unreadAnswer`). A report
 * that fails is sent again at the next interval; a cart of an earlier release fails every one, and
 * then {@link QueuePresenceTracker.reported} is false and the long polls read as before.
 */

/** How often the fans of each event are reported to cart. */
export const PRESENCE_REPORT_MS = 15_000;

/**
 * How long a fan stays in the reports after it last asked: longer than cart's 90 s, so that a fan
 * whose polls stopped a while is reported with the time it really last asked, and cart decides.
 */
export const PRESENCE_KEEP_MS = 120_000;

/** Reports of different events under way at once. */
const REPORTS_IN_FLIGHT = 4;

/** What a {@link QueuePresenceTracker} is made with. */
export interface QueuePresenceOptions {
  /** This replica's id in its reports (cart keeps one report per reporter and event): made once. */
  reporter: string;
  /** A report that failed (sent again at the next interval). */
  onError: (error: unknown, eventId: string) => void;
  now?: () => number;
}

/**
 * When each waiting fan last asked for its ticket at this replica, per event, and the reports of
 * them to cart, every {@link PRESENCE_REPORT_MS} while any fan is known (the timer is started by
 * the first fan seen, and does not keep the process alive).
 */
export class QueuePresenceTracker {
  /** Per event, when each fan last asked, by ticket id, least recently first. */
  readonly #seen = new Map<string, Map<string, number>>();
  /** Per event, when its last report cart took was made (none since a report failed). */
  readonly #reportedAt = new Map<string, number>();
  readonly #backend: Pick<WaitingRoomBackend, 'reportPresence'>;
  readonly #reporter: string;
  readonly #onError: QueuePresenceOptions['onError'];
  readonly #now: () => number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #round: Promise<void> | undefined;
  #stopped = false;

  constructor(backend: Pick<WaitingRoomBackend, 'reportPresence'>, options: QueuePresenceOptions) {
    this.#backend = backend;
    this.#reporter = options.reporter;
    this.#onError = options.onError;
    this.#now = options.now ?? Date.now;
  }

  /** Notes that the fan of queue ticket `ticketId` asked for it now. */
  seen(eventId: string, ticketId: string): void {
    if (this.#stopped) return;
    let fans = this.#seen.get(eventId);
    if (!fans) this.#seen.set(eventId, (fans = new Map()));
    fans.delete(ticketId);
    fans.set(ticketId, this.#now());
    this.#schedule();
  }

  /**
   * Whether cart took the event's last report, made less than two intervals ago, and it held every
   * fan seen: cart then counts each fan polling here as present without a read of its ticket.
   * False after a failed report (an earlier cart's among them) until one succeeds.
   */
  reported(eventId: string): boolean {
    const at = this.#reportedAt.get(eventId);
    return at !== undefined && this.#now() - at < 2 * PRESENCE_REPORT_MS;
  }

  /**
   * Reports every event now (what the timer does), one after another, a few at once; resolves
   * once all are answered. A round already under way is not started again: its promise is.
   */
  reportNow(): Promise<void> {
    this.#round ??= this.#reportAll().finally(() => {
      this.#round = undefined;
      this.#schedule();
    });
    return this.#round;
  }

  /** Reports no more (a report under way still ends). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    if (this.#stopped || this.#timer || this.#round || this.#seen.size === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.reportNow().catch(() => undefined);
    }, PRESENCE_REPORT_MS);
    this.#timer.unref?.();
  }

  async #reportAll(): Promise<void> {
    const events = [...this.#seen.keys()];
    const report = async () => {
      for (let eventId = events.shift(); eventId !== undefined; eventId = events.shift())
        await this.#report(eventId);
    };
    await Promise.all(Array.from({ length: Math.min(REPORTS_IN_FLIGHT, events.length) }, report));
  }

  /**
   * One event's report: its fans seen within {@link PRESENCE_KEEP_MS}, the most recent
   * {@link MAX_PRESENCE_FANS} of them. An event without any is reported empty once (cart drops
   * this replica's last report) and forgotten, whatever cart answers: a report it kept holds only
   * fans it will soon count as gone by their times.
   */
  async #report(eventId: string): Promise<void> {
    const fans = this.#seen.get(eventId);
    if (!fans) return;
    const at = this.#now();
    for (const [ticketId, seenAt] of fans) {
      if (at - seenAt <= PRESENCE_KEEP_MS) break;
      fans.delete(ticketId);
    }
    if (fans.size === 0) {
      this.#seen.delete(eventId);
      this.#reportedAt.delete(eventId);
    }
    const left = Math.max(0, fans.size - MAX_PRESENCE_FANS);
    const report = [...fans].slice(left).map(([ticketId, seenAtMs]) => ({ ticketId, seenAtMs }));
    try {
      await this.#backend.reportPresence(eventId, this.#reporter, report);
      // A report that left fans out does not count: those are kept only by reads of their tickets.
      if (report.length > 0 && left === 0) this.#reportedAt.set(eventId, at);
      else this.#reportedAt.delete(eventId);
    } catch (error) {
      this.#reportedAt.delete(eventId);
      this.#onError(error, eventId);
    }
  }
}
