import { newInventory, type InventoryRecord } from '../domain/inventory.js';
import type { Area } from '../domain/model.js';
import { errorKindOf, type Clock } from '@marquee/platform/kernel';
import type { Repository } from './ports.js';

/**
 * The events' inventory records with the last one this process read or wrote, per event. Safe
 * because every read and write of an inventory runs in its event's queue and this process is the
 * only writer (a write of another process would fail our compare-and-set: the entry is dropped and
 * read again).
 */
export class InventoryCache {
  readonly #last = new Map<string, InventoryRecord>();

  constructor(
    private readonly inventories: Repository<InventoryRecord>,
    private readonly clock: Clock,
  ) {}

  /** The event's inventory, created on first use (inside the event's queue). */
  async loadOrCreate(eventId: string, areas: readonly Area[]): Promise<InventoryRecord> {
    const existing = await this.load(eventId);
    if (existing !== undefined) return existing;
    try {
      const created = await this.inventories.insert(newInventory(eventId, areas, this.clock.now()));
      this.#last.set(created.id, copyInventory(created));
      return created;
    } catch (error) {
      if (errorKindOf(error) !== 'already_exists') throw error;
      const raced = await this.load(eventId);
      if (raced === undefined) throw error;
      return raced;
    }
  }

  /** A private copy of the event's inventory (callers change it, then `save`). */
  async load(eventId: string): Promise<InventoryRecord | undefined> {
    const cached = this.#last.get(eventId);
    if (cached !== undefined) return copyInventory(cached);
    const stored = await this.inventories.get(eventId);
    if (stored !== undefined) this.#last.set(eventId, copyInventory(stored));
    return stored;
  }

  /** Compare-and-set of the inventory; a conflict drops the cached copy (read again next time). */
  async save(inventory: InventoryRecord): Promise<InventoryRecord> {
    const { version, ...rest } = inventory;
    try {
      const saved = await this.inventories.update(inventory.id, version, rest);
      this.#last.set(saved.id, copyInventory(saved));
      return saved;
    } catch (error) {
      this.#last.delete(inventory.id);
      throw error;
    }
  }

  /** Drops the cached copy: the next `load` reads the stored record. */
  forget(eventId: string): void {
    this.#last.delete(eventId);
  }
}

const copyInventory = (inventory: InventoryRecord): InventoryRecord => ({
  ...inventory,
  areas: inventory.areas.map((area) => ({ ...area })),
  updatedAt: new Date(inventory.updatedAt.getTime()),
});
