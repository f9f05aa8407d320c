/** What one admitting tick of an open queue saw, for the stall watch. */
export interface AdmittingTick {
  /** Fans admitted by the tick. */
  admitted: number;
  /** Whether the event is sold out (admissions stop on purpose). */
  soldOut: boolean;
  /**
   * Fans waiting whose turn can come (not held back by their app's quota) at the latest count,
   * undefined before the first.
   */
  waiting: number | undefined;
}

/**
 * How long each open queue has gone without admitting anyone while fans wait for their turn and
 * places remain: the signal of an on-sale that stopped moving (an admitter failing its ticks, a
 * reserve path so slow or failing that the window stays shut, admissions never spent). A queue
 * counts as moving at a tick that admits a fan, that finds it sold out or that counted nobody
 * waiting whose turn can come (fans held back by their app's quota wait for that app's carts to
 * end, which is the quota working); its stall grows from the last such tick, also while ticks
 * fail. A healthy queue admits at least one fan each time an unspent admission expires (its
 * window never drops below one), so a stall longer than the admission's lifetime is not the queue
 * working as meant.
 */
export class StallWatch {
  /** When each watched queue last moved. */
  readonly #movedAt = new Map<string, number>();

  /** Records an admitting tick of `eventId` at `nowMs`. */
  ticked(eventId: string, tick: AdmittingTick, nowMs: number): void {
    const moving = tick.admitted > 0 || tick.soldOut || tick.waiting === 0;
    if (moving || !this.#movedAt.has(eventId)) this.#movedAt.set(eventId, nowMs);
  }

  /** The queue opened (its early joiners were ordered) at `nowMs`: nothing was due before. */
  opened(eventId: string, nowMs: number): void {
    this.#movedAt.set(eventId, nowMs);
  }

  /** This replica no longer admits for `eventId`: another does, or the queue is not open. */
  forget(eventId: string): void {
    this.#movedAt.delete(eventId);
  }

  /** Forgets every queue but those of `eventIds` (the events whose queue is on). */
  retain(eventIds: ReadonlySet<string>): void {
    for (const eventId of this.#movedAt.keys()) if (!eventIds.has(eventId)) this.forget(eventId);
  }

  /** Seconds each watched queue has been stalled at `nowMs` (0 while it moves). */
  stalledSeconds(nowMs: number): Array<{ eventId: string; seconds: number }> {
    return [...this.#movedAt].map(([eventId, movedAt]) => ({
      eventId,
      seconds: Math.max(0, (nowMs - movedAt) / 1000),
    }));
  }
}
