import type { QueueTicket } from '../domain/queue.js';
import type { AppHoldings, QueueTicketRepository } from './ports.js';

/**
 * The room each app has under its held-ticket quota during one admitter tick: its limit, less the
 * tickets it holds in live carts, less its admissions in flight (ADMITTED, not yet spent, within
 * their lifetime). Each admission leads to a reserve of at least one ticket, so each fan admitted
 * takes one from its app's room. The room of an app is read once per tick, when the admitter
 * first meets one of its fans (two reads: its live carts, its admissions in flight), and never for
 * an app without a limit.
 */
export class AppRooms {
  readonly #rooms = new Map<string, number>();
  readonly #closed = new Set<string>();

  constructor(
    private readonly holdings: AppHoldings,
    private readonly tickets: Pick<QueueTicketRepository, 'countAdmittedSince'>,
    private readonly eventId: string,
    /** Admissions since then are in flight (now less an admission's lifetime). */
    private readonly since: Date,
  ) {}

  /** Whether the app of `ticket` may have one more fan admitted now. */
  async hasRoom(ticket: Pick<QueueTicket, 'appId' | 'heldTicketsPerEvent'>): Promise<boolean> {
    let room = this.#rooms.get(ticket.appId);
    if (room === undefined) {
      room = await this.#read(ticket);
      this.#rooms.set(ticket.appId, room);
    }
    return room > 0;
  }

  /** The room left to the app this tick (infinite without a limit); undefined before it is read. */
  left(appId: string): number | undefined {
    return this.#rooms.get(appId);
  }

  /** One fan of the app was admitted. */
  take(appId: string): void {
    this.#rooms.set(appId, (this.#rooms.get(appId) ?? 0) - 1);
  }

  /**
   * No more fans of a limited app this tick: one of them could not be admitted (its ticket was
   * written meanwhile, say by its fan's ask), and a limited app's room goes to its fans in rank
   * order. They are not held back (the app may have room): they wait for the next tick. An app
   * without a limit is not closed: its other fans go on.
   */
  close(appId: string): void {
    if (this.#rooms.get(appId) !== Number.POSITIVE_INFINITY) this.#closed.add(appId);
  }

  /** Whether the app's fans wait for the next tick (`close`). */
  isClosed(appId: string): boolean {
    return this.#closed.has(appId);
  }

  async #read(ticket: Pick<QueueTicket, 'appId' | 'heldTicketsPerEvent'>): Promise<number> {
    const limit = this.holdings.limitOf(ticket.heldTicketsPerEvent);
    if (limit <= 0) return Number.POSITIVE_INFINITY;
    const [held, inFlight] = await Promise.all([
      this.holdings.ticketsHeld(ticket.appId, this.eventId),
      this.tickets.countAdmittedSince(this.eventId, this.since, ticket.appId),
    ]);
    return limit - held - inFlight;
  }
}
