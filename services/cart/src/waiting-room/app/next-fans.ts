import { byOrderKey, ticketIdOfEarlyKey, type QueueTicket } from '../domain/queue.js';
import type { EarlyRanks } from './early-ranks.js';
import type { Stored, WaitingRoomDeps } from './ports.js';

/**
 * Every so many admitting ticks of an event, the next fans are found by the queries of old (every
 * waiting fan in order; every held-back fan): they also find a fan the walk below passed by (one
 * whose admission lost a race twice) and held-back fans whose mark the on-sale's record missed.
 */
const FULL_LOOK_EVERY = 10;
/** Fans read past those due, for the ones that left or moved on meanwhile. */
const SLACK = 16;
/** Fans passed by that the next tick reads again, per event, at most. */
const MAX_PASSED_BY = 1_000;

/**
 * Where the admitter finds the next fans in order. On the Mongo-wire server of development and CI
 * any query but by `_id` decodes the whole collection (about 2 s a query at 10,000 fans on a busy
 * host), so the early joiners are walked instead: their order is frozen (`EarlyRanks`), their
 * order key holds their ticket id, and the fans ranked after `admittedThrough` are read by id, as
 * many as are due. The late joiners after them are walked by their arrival numbers
 * (`lateJoiners`), also by id. Every `FULL_LOOK_EVERY`th tick goes by the queries, and so does a
 * tick whose walk found fewer fans than due where more may follow.
 */
/** Where a tick's look for the next fans starts. */
interface WalkAt {
  /** The on-sale's `admittedThrough`. */
  through: number;
  /** Its early joiners. */
  earlyCount: number;
  /** Fans due this tick. */
  due: number;
  /** A full look (the queries). */
  full: boolean;
}

export class NextFans {
  readonly #ticks = new Map<string, number>();
  /** Per event, fans a tick left waiting behind `admittedThrough`, for the next tick to read. */
  readonly #passedBy = new Map<string, Set<string>>();

  constructor(
    private readonly deps: Pick<WaitingRoomDeps, 'tickets' | 'settings'>,
    private readonly early: EarlyRanks,
  ) {}

  /** Whether this tick of the event looks with the queries (counted per call). */
  fullLook(eventId: string): boolean {
    const tick = (this.#ticks.get(eventId) ?? 0) + 1;
    this.#ticks.set(eventId, tick);
    return tick % FULL_LOOK_EVERY === 1;
  }

  /**
   * A tick left the fan of `ticketId` waiting (its admission lost its race twice, its app was
   * closed for the tick, or it asked while being skipped as gone) while `admittedThrough` may pass
   * it: the next tick reads it again by id, where the walk past `admittedThrough` would not.
   */
  passedBy(eventId: string, ticketId: string): void {
    let ids = this.#passedBy.get(eventId);
    if (!ids) this.#passedBy.set(eventId, (ids = new Set()));
    // Bounded per event; read and dropped by the event's next tick on this replica (a replica
    // that no longer admits for the event keeps at most this many ids of it).
    if (ids.size < MAX_PASSED_BY) ids.add(ticketId);
  }

  /**
   * The next waiting fans not held back, in order: at least `due` of them when there are, at most
   * `admitBatch`. `through` is the on-sale's `admittedThrough`, `earlyCount` its early joiners.
   */
  async waiting(eventId: string, at: WalkAt): Promise<Stored<QueueTicket>[]> {
    const passedBy = [...(this.#passedBy.get(eventId) ?? [])];
    this.#passedBy.delete(eventId);
    const ahead = passedBy.length > 0 ? await this.deps.tickets.getMany(passedBy) : [];
    const found = await this.#past(eventId, at);
    const known = new Set(found.map((ticket) => ticket.id));
    const again = waitingOf(
      eventId,
      ahead.filter((ticket) => !known.has(ticket.id)),
    );
    return again.length === 0 ? found : [...again, ...found].sort(byOrderKey);
  }

  /** The next waiting fans past `admittedThrough` (the walk, or the query). */
  async #past(
    eventId: string,
    { through, earlyCount, due, full }: WalkAt,
  ): Promise<Stored<QueueTicket>[]> {
    const { tickets, settings } = this.deps;
    const query = () => tickets.nextWaiting(eventId, settings.admitBatch);
    if (full) return query();
    const count = Math.min(settings.admitBatch, due + SLACK);
    const keys = through < earlyCount ? await this.early.keysAfter(eventId, through, count) : [];
    if (!keys) return query();
    const early = waitingOf(eventId, await tickets.getMany(keys.map(ticketIdOfEarlyKey)));
    // Fewer than due among a full read: fans held back or moved on among them (a tick whose
    // record of `admittedThrough` was lost): the query finds the next ones wherever they are.
    if (keys.length === count) return early.length >= due ? early : query();
    // The early joiners end within this read: the late joiners follow, in arrival order.
    const from = Math.max(1, through - earlyCount + 1);
    const late = await tickets.lateJoiners(eventId, from, count - keys.length);
    const found = [...early, ...waitingOf(eventId, late.tickets)].sort(byOrderKey);
    // Every number taken so far was read: those are all the fans past `through` (a number whose
    // record was lost waits for a full look).
    const complete = from + (count - keys.length) - 1 >= late.last;
    return found.length >= due || complete ? found : query();
  }
}

/** The tickets of the event waiting for their turn (not held back), in order. */
function waitingOf(eventId: string, found: Stored<QueueTicket>[]): Stored<QueueTicket>[] {
  return found
    .filter(
      (ticket) => ticket.eventId === eventId && ticket.state === 'WAITING' && !ticket.heldBack,
    )
    .sort(byOrderKey);
}
