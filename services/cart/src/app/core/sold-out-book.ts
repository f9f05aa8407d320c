import type { Clock, SoldOutBook } from '../ports.js';

/** The key of "any price level of the event" (a reserve that named none). */
const ANY_LEVEL = '';

interface Entry {
  /** The smallest quantity the partner refused: equal or larger reserves are sold out too. */
  quantity: number;
  /** Believed until then (ms epoch). */
  until: number;
}

/**
 * `book`, telling `placesBack` of every `clear` (a hold of this process released or expired, a live
 * availability read showing places), whether or not the book held an entry of the event: the
 * waiting room reopens a sold-out queue on it.
 */
export function tellingPlacesBack(
  book: SoldOutBook,
  placesBack: (eventId: string) => void,
): SoldOutBook {
  return {
    isSoldOut: (eventId, priceLevelIds, quantity) =>
      book.isSoldOut(eventId, priceLevelIds, quantity),
    hasEntries: (eventId) => book.hasEntries(eventId),
    markSoldOut: (eventId, priceLevelIds, quantity) =>
      book.markSoldOut(eventId, priceLevelIds, quantity),
    clear(eventId, priceLevelIds) {
      book.clear(eventId, priceLevelIds);
      placesBack(eventId);
    },
  };
}

/**
 * The {@link SoldOutBook} of one cart process, in memory. Each entry lives `ttlMs` after the
 * partner's last sold-out answer for it, or until {@link clear}: another replica's release, or a
 * change at the partner this process did not see, reopens the level after at most `ttlMs`.
 * Bounded to `maxEvents` events (the oldest forgotten first): forgetting only sends a reserve to
 * the partner, which stays the judge of what is held.
 */
export class InMemorySoldOutBook implements SoldOutBook {
  readonly #events = new Map<string, Map<string, Entry>>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxEvents = 10_000,
  ) {}

  isSoldOut(eventId: string, priceLevelIds: readonly string[], quantity = 1): boolean {
    const levels = this.#live(eventId);
    if (levels === undefined) return false;
    const covers = (level: string) => {
      const entry = levels.get(level);
      return entry !== undefined && quantity >= entry.quantity;
    };
    if (covers(ANY_LEVEL)) return true;
    const named = [...new Set(priceLevelIds)];
    return named.length > 0 && !named.includes(ANY_LEVEL) && named.every(covers);
  }

  hasEntries(eventId: string): boolean {
    return this.#live(eventId) !== undefined;
  }

  markSoldOut(eventId: string, priceLevelIds: readonly string[], quantity: number): void {
    if (this.ttlMs <= 0 || !Number.isInteger(quantity) || quantity < 1) return;
    const named = [...new Set(priceLevelIds)];
    // A refusal of several levels at once says nothing about any one of them.
    const level = named.length === 0 || named.includes(ANY_LEVEL) ? ANY_LEVEL : named[0]!;
    if (named.length > 1 && level !== ANY_LEVEL) return;
    const now = this.clock.now().getTime();
    const levels = this.#live(eventId) ?? new Map<string, Entry>();
    const known = levels.get(level);
    levels.set(level, {
      quantity: known && known.until > now ? Math.min(known.quantity, quantity) : quantity,
      until: now + this.ttlMs,
    });
    this.#events.delete(eventId); // re-inserted last: Map order is the age order
    this.#events.set(eventId, levels);
    while (this.#events.size > this.maxEvents)
      this.#events.delete(this.#events.keys().next().value!);
  }

  clear(eventId: string, priceLevelIds?: readonly string[]): void {
    const levels = this.#events.get(eventId);
    if (levels === undefined) return;
    if (priceLevelIds === undefined) {
      this.#events.delete(eventId);
      return;
    }
    // Places of a level came back: the event is no longer sold out "at any level" either.
    levels.delete(ANY_LEVEL);
    for (const level of priceLevelIds) levels.delete(level);
    if (levels.size === 0) this.#events.delete(eventId);
  }

  /** The event's entries still believed, expired ones dropped; undefined when none is. */
  #live(eventId: string): Map<string, Entry> | undefined {
    const levels = this.#events.get(eventId);
    if (levels === undefined) return undefined;
    const now = this.clock.now().getTime();
    for (const [level, entry] of levels) if (entry.until <= now) levels.delete(level);
    if (levels.size > 0) return levels;
    this.#events.delete(eventId);
    return undefined;
  }
}
