import { errorKindOf } from '@marquee/platform/kernel';
import { CartError, ErrorCode } from '../../domain/errors.js';
import {
  lateOrderKey,
  queueEnded,
  rankOf,
  viewOf,
  waitingMayEnd,
  type OnSale,
  type QueueTicket,
  type QueueView,
} from '../domain/queue.js';
import type { EarlyRanks } from './early-ranks.js';
import { queuedOnSale } from './join-queue.js';
import type { Stored, WaitingRoomDeps } from './ports.js';

/**
 * A fan's asks refresh `seenAt` at most this often (each refresh is a write). While the edge
 * reports the fans it holds (`ReportPresence`) those reports keep a waiting fan in the queue and
 * its ticket is read only when its wait may end. Without them (an edge of an earlier release, or
 * reports failing) the edge reads a long-polling fan's ticket above the admission horizon at the
 * end of a wait when its replica last read it 30 s ago or more (services/edge-gateway,
 * app/queue-long-polls.ts), so such reads come 40 to 50 s apart and each refreshes; a fan near the
 * front, or whose polls reach other replicas, is read at every poll (20 to 25 s) and refreshed at
 * every other. Either way `seenAt` is never 60 s old while the fan asks, against the 90 s after
 * which a silent fan counts as gone.
 */
const SEEN_REFRESH_MS = 25_000;
/** The longest a read may wait for a WAITING ticket to change. */
export const MAX_WAIT_MS = 25_000;

export interface QueueTicketAnswer {
  ticket: QueueTicket;
  view: QueueView;
  /** The ticket's rank in admission order, once known. */
  rank?: number;
  /** The signed admission, while the view is ADMITTED. */
  admissionToken?: string;
}

/**
 * A fan's queue ticket as the fan sees it (`GET /partners/v1/events/{event_id}/queue/{id}`):
 * WAITING with its position and estimated wait, ADMITTED with the admission token to reserve with,
 * SOLD_OUT, or EXPIRED. Asking keeps the fan in the queue (a fan that stops asking is taken for
 * gone when its turn comes). An early joiner whose join was written after the early order was
 * frozen (a write that trailed the opening's grace) queues as the next late joiner.
 */
export class ReadQueueTicket {
  constructor(
    private readonly deps: Pick<
      WaitingRoomDeps,
      'onSales' | 'tickets' | 'clock' | 'signer' | 'settings' | 'watch'
    >,
    private readonly early: EarlyRanks,
  ) {}

  /**
   * The ticket now; with `waitMs`, while it stays WAITING, the answer comes once what the fan
   * reads may have changed (`waitingMayEnd`: a rank, an admission, a sell-out) or after `waitMs`
   * (at most {@link MAX_WAIT_MS}): long polling, so that fans do not ask in a loop.
   */
  async handle(
    eventId: string,
    ticketId: string,
    appId: string,
    waitMs = 0,
  ): Promise<QueueTicketAnswer> {
    const { clock, watch } = this.deps;
    const waitFor = Number.isFinite(waitMs) ? Math.min(Math.max(0, waitMs), MAX_WAIT_MS) : 0;
    const until = clock.now().getTime() + waitFor;
    let answer = await this.#read(eventId, ticketId, appId);
    let stale = false;
    for (;;) {
      const left = until - clock.now().getTime();
      if (answer.view.status !== 'WAITING' || left <= 0) return answer;
      const rank = answer.rank;
      const heldBackOf = answer.ticket.heldBack ? appId : undefined;
      const changed = await watch.until(
        eventId,
        (onSale) => (stale ? queueEnded(onSale) : waitingMayEnd(onSale, rank, heldBackOf)),
        left,
      );
      answer = await this.#read(eventId, ticketId, appId);
      // The wait ran out, or the fan has a rank (a position) it did not have: answer it.
      if (!changed || answer.rank !== rank) return answer;
      // Its app's admissions passed a fan still held back (one that could not be admitted in
      // order): only the queue's end, or the end of the wait, answers it now, not every poll.
      stale = heldBackOf !== undefined && answer.ticket.heldBack === true;
    }
  }

  /**
   * Several tickets of one event as their fans see them now, in one call: the fans a change
   * woke at the edge. A ticket not found, or of another app or event, is left out.
   */
  async handleMany(
    eventId: string,
    refs: ReadonlyArray<{ ticketId: string; appId: string }>,
  ): Promise<QueueTicketAnswer[]> {
    const onSale = await queuedOnSale(this.deps, eventId);
    const askedBy = new Map(refs.map((ref) => [ref.ticketId, ref.appId]));
    const found = await this.deps.tickets.getMany([...askedBy.keys()]);
    const mine = found.filter((t) => t.eventId === eventId && askedBy.get(t.id) === t.appId);
    return Promise.all(mine.map((ticket) => this.#answer(ticket, onSale)));
  }

  /**
   * The answer for a ticket its fan just joined with (`JoinQueue`), without reading it again:
   * what a read would answer now (a fresh ticket has no admission and was seen just now).
   */
  async joined(ticket: Stored<QueueTicket>): Promise<QueueTicketAnswer> {
    return this.#answer(ticket, await queuedOnSale(this.deps, ticket.eventId));
  }

  async #read(eventId: string, ticketId: string, appId: string): Promise<QueueTicketAnswer> {
    const onSale = await queuedOnSale(this.deps, eventId);
    const ticket = await this.deps.tickets.get(ticketId);
    if (!ticket || ticket.eventId !== eventId || ticket.appId !== appId)
      throw new CartError(
        'not_found',
        ErrorCode.INVALID_CART,
        `queue ticket ${ticketId} not found`,
        {
          queue_ticket_id: ticketId,
        },
      );
    return this.#answer(ticket, onSale);
  }

  async #answer(found: Stored<QueueTicket>, onSale: OnSale): Promise<QueueTicketAnswer> {
    const { clock, signer, settings } = this.deps;
    const { eventId, appId } = found;
    let ticket = found;
    const ranks = onSale.frozenAt ? await this.early.of(eventId) : undefined;
    let rank = rankOf(ticket, onSale, ranks);
    if (onSale.frozenAt && rank === undefined && ticket.early) {
      ticket = await this.#demote(ticket);
      rank = rankOf(ticket, onSale, ranks);
    }
    const now = clock.now();
    ticket = await this.#seen(ticket, now);
    const view = viewOf(ticket, onSale, { now, rank, admissionTtlMs: settings.admissionTtlMs });
    if (view.status !== 'ADMITTED')
      return { ticket, view, ...(rank !== undefined ? { rank } : {}) };
    const admissionToken = signer.sign({
      ticketId: ticket.id,
      eventId,
      appId,
      identity: ticket.identity,
      expiresAtMs: view.expiresAt.getTime(),
    });
    return { ticket, view, admissionToken, ...(rank !== undefined ? { rank } : {}) };
  }

  /** An early joiner the frozen order does not hold becomes the next late joiner. */
  async #demote(ticket: Stored<QueueTicket>): Promise<Stored<QueueTicket>> {
    const sequence = await this.deps.tickets.nextSequence(ticket.eventId, ticket.id);
    const { version, ...current } = ticket;
    return this.deps.tickets.update(
      { ...current, early: false, sequence, orderKey: lateOrderKey(sequence) },
      version,
    );
  }

  /** Records that the fan asked (at most every few seconds; a lost race changes nothing). */
  async #seen(ticket: Stored<QueueTicket>, now: Date): Promise<Stored<QueueTicket>> {
    if (ticket.state !== 'WAITING' || now.getTime() - ticket.seenAt.getTime() < SEEN_REFRESH_MS)
      return ticket;
    const { version, ...current } = ticket;
    try {
      return await this.deps.tickets.update({ ...current, seenAt: now }, version);
    } catch (error) {
      // The admitter (or another ask) wrote it meanwhile: what it wrote is the answer.
      if (errorKindOf(error) !== 'aborted') throw error;
      return (await this.deps.tickets.get(ticket.id)) ?? ticket;
    }
  }
}
