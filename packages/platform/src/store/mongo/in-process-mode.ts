/**
 * The `in-process` write mode (FerretDB 1.24), correct as long as one process writes the
 * collection. That server is weaker than its wire protocol suggests: an update or findAndModify is
 * a SELECT followed by an unconditional `UPDATE … WHERE _id = ?`, so two concurrent
 * compare-and-sets can both "win"; and only a bare `{ _id }` filter reaches SQL, any other filter
 * decodes the whole collection. So the condition is checked here, under the per-document mutex
 * every write and relay ack of the connection takes, every write and read names the document by
 * `_id` alone, and the relay finds pending documents through the outbox markers
 * (outbox-markers.ts) and this process's memory of what it wrote (collection-memory.ts).
 */
import type { OutboxEvent, PendingOutbox } from '../../outbox/types.js';
import { versionConflict } from '../errors.js';
import type { MongoCollection } from './collection.js';
import type { Filter, StoredDoc } from './stored.js';
import { fromStoredEvent, live, READ, tombstoneUpdate } from './stored.js';
import type { WriteMode } from './write-mode.js';

/**
 * How often the relay reads the markers of a collection when its memory can answer: the memory
 * holds this process's own pending documents; the markers also hold what an earlier process (or
 * a write whose outcome is unknown) left.
 */
const MARKER_SCAN_EVERY_MS = 1_000;

export class InProcessMode implements WriteMode {
  readonly kind = 'in-process';
  readonly readsBeforeUpdate = true;
  readonly #collection: MongoCollection;

  constructor(collection: MongoCollection) {
    this.#collection = collection;
  }

  filter(id: string): Filter {
    return { _id: id };
  }

  async beforeEvents(id: string, events: readonly OutboxEvent[]): Promise<boolean | undefined> {
    return events.length > 0 ? this.#collection.markers.mark(id) : undefined;
  }

  written(id: string, stored: StoredDoc, withNewEvents: boolean): void {
    this.#collection.memory.rememberWritten(id, stored, withNewEvents);
    this.#collection.due?.noteData(id, stored.data);
  }

  async delete(
    id: string,
    expectedVersion: number | undefined,
    events: OutboxEvent[],
  ): Promise<boolean> {
    const { name, memory, markers, due } = this.#collection;
    const current = live(
      await this.#collection
        .docs()
        .findOne({ _id: id }, { projection: { version: 1, tombstone: 1, outboxPending: 1 } }),
    );
    if (current === null) return false;
    if (expectedVersion !== undefined && current.version !== expectedVersion) {
      throw versionConflict(name, id, expectedVersion, current.version);
    }
    // Stored events are pending only while the document's marker exists (see `mark`).
    if (events.length === 0 && !(current.outboxPending && (await markers.marked(id)))) {
      await this.#collection.docs().deleteOne({ _id: id });
      memory.forget(id);
      due?.note(id, undefined);
      return true;
    }
    // Events to relay (new ones, or still queued): a tombstone the relay purges once they are out.
    // findAndModify, not update: see `setById`. The outbox is read back on the relay's next pass.
    const now = new Date();
    memory.forget(id);
    due?.note(id, undefined);
    const replace = !(await markers.mark(id));
    // Forgotten above: the relay finds the tombstone through its marker.
    memory.markerScan.needed = true;
    await this.#collection.setById(id, tombstoneUpdate(events, now, replace));
    this.#collection.notify(events);
    return true;
  }

  /**
   * The mutex keeps writers of this process out, and in this mode no other process writes. All
   * out: removing the marker is the acknowledgement; the published events stay in the document
   * until its next write with events replaces them (see `mark`), a write saved.
   */
  async ack(docId: string, eventIds: readonly string[]): Promise<void> {
    const { memory, markers } = this.#collection;
    const acked = new Set(eventIds);
    const remembered = memory.outboxes.get(docId);
    const current: Pick<StoredDoc, 'outbox' | 'tombstone' | 'outboxPending'> | null = remembered
      ? { ...remembered, outboxPending: true }
      : await this.#collection
          .docs()
          .findOne(
            { _id: docId },
            { ...READ, projection: { outbox: 1, tombstone: 1, outboxPending: 1 } },
          );
    if (current === null) {
      markers.settle(docId);
      return;
    }
    const outbox = current.outbox ?? [];
    const remaining = outbox.filter((event) => !acked.has(event.id));
    if (remaining.length === outbox.length && (remaining.length > 0 || !current.outboxPending)) {
      if (remaining.length === 0) markers.settle(docId);
      return;
    }
    if (remaining.length === 0 && current.tombstone)
      await this.#collection.docs().deleteOne({ _id: docId });
    else if (remaining.length > 0)
      await this.#collection.setById(docId, { $set: { outbox: remaining } });
    memory.remember(docId, { outbox: remaining, tombstone: current.tombstone });
    if (remaining.length === 0) markers.settle(docId);
  }

  /** The marker is what the relay reads in this mode; none means nothing is pending. */
  async defer(docId: string, until: Date): Promise<void> {
    await this.#collection.markers.defer(docId, until);
    const known = this.#collection.memory.outboxes;
    const pending = known.get(docId);
    if (pending !== undefined) known.set(docId, { ...pending, dueAt: until.getTime() });
  }

  /**
   * This process's own pending documents from memory, or, at the first pass, at most once a
   * second after that and at once when the memory lost track of one, the documents of the due
   * markers.
   */
  async pendingOutbox(limit: number): Promise<PendingOutbox[]> {
    const { memory } = this.#collection;
    const now = Date.now();
    const scan = memory.markerScan;
    if (!scan.needed && now - scan.at < MARKER_SCAN_EVERY_MS) {
      // This process's own pending documents, from memory: no read at all.
      return [...memory.outboxes]
        .filter(([, pending]) => pending.dueAt <= now)
        .sort(([a, x], [b, y]) => x.dueAt - y.dueAt || (a < b ? -1 : a > b ? 1 : 0))
        .slice(0, limit)
        .map(([docId, pending]) => ({ docId, events: pending.outbox.map(fromStoredEvent) }));
    }
    scan.needed = false;
    scan.at = now;
    const due = await this.#collection.markers.due(limit).catch((error: unknown) => {
      scan.needed = true;
      throw error;
    });
    const found = await Promise.all(due.map(({ _id }) => this.#pendingOf(_id)));
    // No document or no events: a write that failed or never came after its marker, or one
    // still under way. Acking nothing under the document's mutex removes the marker only if the
    // document still has no events once that write is done.
    for (const { docId, events } of found)
      if (events.length === 0) await this.#collection.locked(docId, () => this.ack(docId, []));
    return found.filter(({ events }) => events.length > 0);
  }

  /** The events of a document with a due marker: remembered, or read from the document. */
  async #pendingOf(docId: string): Promise<PendingOutbox> {
    const { memory } = this.#collection;
    const eventsOf = (stored: Pick<StoredDoc, 'outbox'> | null | undefined) => ({
      docId,
      events: (stored?.outbox ?? []).map(fromStoredEvent),
    });
    const remembered = memory.outboxes.get(docId);
    if (remembered !== undefined) return eventsOf(remembered);
    // Read under the document's mutex: a write of this process may have put the marker in and
    // not yet its events, and until it has, the document may still hold events that were
    // published already (see `mark`).
    return this.#collection.locked(docId, async () =>
      eventsOf(
        memory.outboxes.get(docId) ??
          (await this.#collection
            .docs()
            .findOne({ _id: docId }, { ...READ, projection: { _id: 1, outbox: 1 } })),
      ),
    );
  }
}
