/**
 * In-process mode: the side collection `<collection>_outbox_pending`, one marker per document with
 * unpublished events, through which the relay finds them (so its cost follows the backlog, not the
 * data). A marker is written before its document, under the document's mutex: events never exist
 * without one. Removing the marker is the acknowledgement; acknowledged markers are removed
 * together, one command a moment later (`settle`), and a write meanwhile takes its document's
 * marker over without a command.
 */
import type { CollectionMemory, Settling } from './collection-memory.js';
import type { Collection, PendingMarker } from './stored.js';
import { isDuplicateKey } from './stored.js';
import { GroupedInserts } from './grouped-inserts.js';

/**
 * How long acknowledged markers wait to be removed together (one command for all of them), and
 * how many make the removal go at once.
 */
const SETTLE_AFTER_MS = 100;
const SETTLE_AT_MOST = 256;

export class OutboxMarkers {
  readonly #markers: () => Collection<PendingMarker>;
  readonly #memory: CollectionMemory;
  readonly #settling: Settling;
  readonly #inserts: GroupedInserts<PendingMarker>;

  constructor(markers: () => Collection<PendingMarker>, memory: CollectionMemory) {
    this.#markers = markers;
    this.#memory = memory;
    this.#settling = memory.settling;
    this.#inserts = new GroupedInserts(markers);
  }

  /**
   * Before a write that leaves events to relay: the document's marker, due now. Written first, so
   * a failure here fails the write before anything of it is stored, and a failure after it leaves
   * only a marker, which the relay clears (it finds no events).
   *
   * Answers whether the marker was there already. Without one, whatever events the document
   * stores were all published (the relay removes the marker only then, and leaves the events in
   * place rather than spend a write on clearing them): the write replaces them with its own.
   * With one, the stored events are still pending and the write appends to them.
   */
  async mark(id: string): Promise<boolean> {
    if (this.#settling.ids.delete(id)) {
      // Acknowledged but not removed yet: the marker is still there; this write takes it over.
      return false;
    }
    const removing = this.#settling.removing.get(id);
    if (removing !== undefined) await removing.removal.catch(() => undefined);
    // Insert first: most writes find no marker (the relay took the last one away), and FerretDB
    // runs an insert for a third of the CPU of a findAndModify (0.22 ms against 0.69, measured).
    // Concurrent writes of the collection share one insert command (grouped-inserts.ts).
    try {
      await this.#inserts.insert({ _id: id, dueAt: new Date() });
      return false;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    const before = await this.#markers().findOneAndUpdate(
      { _id: id },
      { $set: { dueAt: new Date() } },
      { upsert: true, returnDocument: 'before' },
    );
    return before !== null;
  }

  /** Whether the document may hold unpublished events (its marker exists). */
  async marked(id: string): Promise<boolean> {
    return (
      this.#memory.outboxes.has(id) ||
      (!this.#isSettled(id) &&
        (await this.#markers().findOne({ _id: id }, { projection: { _id: 1 } })) !== null)
    );
  }

  /**
   * The markers due by now, soonest first, at most `limit`, without those acknowledged and
   * waiting for their removal.
   */
  async due(limit: number): Promise<PendingMarker[]> {
    const settling = this.#settling;
    const read = await this.#markers()
      .find({ dueAt: { $lte: new Date() } })
      .sort({ dueAt: 1, _id: 1 })
      .limit(limit + settling.ids.size + settling.removing.size)
      .toArray();
    return read.filter((marker) => !this.#settledMarker(marker)).slice(0, limit);
  }

  /** The relay deferred the document's events: its marker is due at `until` (if it has one). */
  async defer(id: string, until: Date): Promise<void> {
    await this.#markers().updateOne({ _id: id }, { $set: { dueAt: until } });
  }

  /**
   * Under the document's mutex: its events are all out, so its marker goes, with others in one
   * command a moment later (`settleMarkers`).
   */
  settle(id: string): void {
    const settling = this.#settling;
    settling.ids.set(id, Date.now());
    if (settling.ids.size >= SETTLE_AT_MOST) void this.settleMarkers().catch(() => undefined);
    else
      settling.timer ??= setTimeout(
        () => void this.settleMarkers().catch(() => undefined),
        SETTLE_AFTER_MS,
      ).unref();
  }

  /**
   * Removes the acknowledged markers. A write meanwhile takes its document's marker over (if still
   * waiting) or waits for the removal before writing a new one (if under way). A removal that
   * fails leaves markers whose events the relay then publishes once more.
   */
  async settleMarkers(): Promise<void> {
    const settling = this.#settling;
    clearTimeout(settling.timer);
    settling.timer = undefined;
    const acked = [...settling.ids];
    if (acked.length === 0) return;
    settling.ids.clear();
    // Each only as acknowledged: a marker written again since (dueAt later) stays.
    const removal = this.#markers().deleteMany({
      $or: acked.map(([id, at]) => ({ _id: id, dueAt: { $lte: new Date(at) } })),
    });
    for (const [id, at] of acked) settling.removing.set(id, { removal, at });
    try {
      await removal;
    } finally {
      for (const [id] of acked)
        if (settling.removing.get(id)?.removal === removal) settling.removing.delete(id);
    }
  }

  /** Removes the acknowledged markers now and waits for every removal under way. */
  async settleAll(): Promise<void> {
    await this.settleMarkers();
    await Promise.all(
      [...new Set([...this.#settling.removing.values()].map(({ removal }) => removal))].map(
        (removal) => removal.catch(() => undefined),
      ),
    );
  }

  /** The marker is acknowledged (removed, or waiting for its removal). */
  #isSettled(id: string): boolean {
    return this.#settling.ids.has(id) || this.#settling.removing.has(id);
  }

  /**
   * A marker read from the collection is one this process acknowledged and has yet to remove,
   * unless it was written again since (by a process that should not write here, but may).
   */
  #settledMarker(marker: PendingMarker): boolean {
    const settling = this.#settling;
    const at = settling.ids.get(marker._id) ?? settling.removing.get(marker._id)?.at;
    if (at === undefined) return false;
    if (marker.dueAt.getTime() <= at) return true;
    settling.ids.delete(marker._id);
    return false;
  }
}
