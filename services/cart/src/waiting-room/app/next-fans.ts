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

/**
 * Where the admitter finds the next fans in order. On the Mongo-wire server of development and CI
 * any query but by `_id` decodes the whole collection (about 2 s a query at 10,000 fans on a busy
 * host), so the early joiners are walked instead: their order is frozen (`EarlyRanks`), their
 * order key holds their ticket id, and the fans ranked after `admittedThrough` are read by id, as
 * many as are due. Late joiners, and every `FULL_LOOK_EVERY`th tick, go by the queries.
 */
export class NextFans {
  readonly #ticks = new Map<string, number>();

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
   * The next waiting fans not held back, in order: at least `due` of them when there are, at most
   * `admitBatch`. `through` is the on-sale's `admittedThrough`, `earlyCount` its early joiners.
   */
  async waiting(
    eventId: string,
    {
      through,
      earlyCount,
      due,
      full,
    }: { through: number; earlyCount: number; due: number; full: boolean },
  ): Promise<Stored<QueueTicket>[]> {
    const { tickets, settings } = this.deps;
    const count = Math.min(settings.admitBatch, due + SLACK);
    const keys =
      full || through >= earlyCount
        ? undefined
        : await this.early.keysAfter(eventId, through, count);
    if (!keys || keys.length < count) return tickets.nextWaiting(eventId, settings.admitBatch);
    const found = (await tickets.getMany(keys.map(ticketIdOfEarlyKey)))
      .filter(
        (ticket) => ticket.eventId === eventId && ticket.state === 'WAITING' && !ticket.heldBack,
      )
      .sort(byOrderKey);
    // Fewer than due: fans held back or moved on among them (a tick whose record of
    // `admittedThrough` was lost): the query finds the next ones wherever they are.
    return found.length >= due ? found : tickets.nextWaiting(eventId, settings.admitBatch);
  }
}
