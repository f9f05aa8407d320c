import { earlyRanks } from '../domain/queue.js';
import type { OnSaleRepository } from './ports.js';

/**
 * The frozen early order of each event, ranked, kept by this replica: it never changes once
 * frozen, so it is read from the store once per event.
 */
export class EarlyRanks {
  readonly #byEvent = new Map<string, Map<string, number>>();

  constructor(private readonly onSales: Pick<OnSaleRepository, 'earlyOrder'>) {}

  /** The ranks of the event's early joiners by order key; undefined before the freeze. */
  async of(eventId: string): Promise<ReadonlyMap<string, number> | undefined> {
    const known = this.#byEvent.get(eventId);
    if (known) return known;
    const keys = await this.onSales.earlyOrder(eventId);
    if (!keys) return undefined;
    const ranks = earlyRanks(keys);
    this.#byEvent.set(eventId, ranks);
    return ranks;
  }
}
