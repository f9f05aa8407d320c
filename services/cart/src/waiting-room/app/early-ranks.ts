import { earlyRanks } from '../domain/queue.js';
import type { OnSaleRepository } from './ports.js';

/**
 * The frozen early order of each event, ranked, kept by this replica: it never changes once
 * frozen, so it is read from the store once per event.
 */
export class EarlyRanks {
  readonly #byEvent = new Map<string, Map<string, number>>();
  /** The keys in rank order, per event (a map's keys keep their insertion order: by rank). */
  readonly #sorted = new Map<string, string[]>();
  /** A load under way per event: the fans asking at the opening share one read. */
  readonly #loading = new Map<string, Promise<Map<string, number> | undefined>>();

  constructor(private readonly onSales: Pick<OnSaleRepository, 'earlyOrder'>) {}

  /**
   * The order keys of the event's early joiners ranked `from` + 1 to `from` + `count` (rank r is
   * the r-th key); undefined before the freeze.
   */
  async keysAfter(eventId: string, from: number, count: number): Promise<string[] | undefined> {
    const ranks = await this.of(eventId);
    if (!ranks) return undefined;
    let sorted = this.#sorted.get(eventId);
    if (!sorted) {
      sorted = [...ranks.keys()];
      this.#sorted.set(eventId, sorted);
    }
    return sorted.slice(Math.max(0, from), Math.max(0, from) + count);
  }

  /** The ranks of the event's early joiners by order key; undefined before the freeze. */
  async of(eventId: string): Promise<ReadonlyMap<string, number> | undefined> {
    const known = this.#byEvent.get(eventId);
    if (known) return known;
    let loading = this.#loading.get(eventId);
    if (!loading) {
      loading = this.#load(eventId);
      this.#loading.set(eventId, loading);
      void loading.then(
        () => this.#loading.delete(eventId),
        () => this.#loading.delete(eventId),
      );
    }
    return loading;
  }

  async #load(eventId: string): Promise<Map<string, number> | undefined> {
    const keys = await this.onSales.earlyOrder(eventId);
    if (!keys) return undefined;
    const ranks = earlyRanks(keys);
    this.#byEvent.set(eventId, ranks);
    return ranks;
  }
}
