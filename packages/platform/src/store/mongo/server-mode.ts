/**
 * The `server` write mode (MongoDB): every write is one conditional single-document write with
 * its condition (the expected version, the outbox length) in the filter, atomic on the server, so
 * it holds across processes and replicas. The relay finds pending documents through the outbox
 * index (`{ outboxPending: 1, outboxDueAt: 1 }`, indexes.ts).
 */
import { AppError } from '../../errors/index.js';
import type { OutboxEvent, PendingOutbox } from '../../outbox/types.js';
import { versionConflict } from '../errors.js';
import type { MongoCollection } from './collection.js';
import type { Filter, StoredDoc, UpdateFilter } from './stored.js';
import { fromStoredEvent, MAX_RACE_RETRIES, READ, tombstoneUpdate } from './stored.js';
import type { WriteMode } from './write-mode.js';

export class ServerMode implements WriteMode {
  readonly kind = 'server';
  readonly readsBeforeUpdate = false;
  readonly #collection: MongoCollection;

  constructor(collection: MongoCollection) {
    this.#collection = collection;
  }

  filter(id: string, condition: { version: number; tombstone: boolean }): Filter {
    return { _id: id, ...condition };
  }

  beforeEvents(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  written(): void {}

  async delete(
    id: string,
    expectedVersion: number | undefined,
    events: OutboxEvent[],
  ): Promise<boolean> {
    const { name } = this.#collection;
    const docs = () => this.#collection.docs();
    const versionCondition = expectedVersion === undefined ? {} : { version: expectedVersion };
    for (let attempt = 0; attempt < MAX_RACE_RETRIES; attempt += 1) {
      if (events.length === 0) {
        // Nothing to relay: remove the record outright.
        const removed = await docs().deleteOne({
          _id: id,
          tombstone: false,
          outboxPending: false,
          ...versionCondition,
        });
        if (removed.deletedCount === 1) return true;
      }
      const current = await this.#collection.readVersion(id);
      if (current === null) return false;
      if (expectedVersion !== undefined && current.version !== expectedVersion) {
        throw versionConflict(name, id, expectedVersion, current.version);
      }
      // Events to relay (new ones, or still queued): leave a tombstone the relay purges once they are out.
      const tombstoned = await docs().updateOne(
        { _id: id, tombstone: false, version: current.version },
        tombstoneUpdate(events, new Date()),
      );
      if (tombstoned.modifiedCount === 1) {
        this.#collection.notify(events);
        return true;
      }
    }
    throw new AppError('aborted', `${name} ${id}: delete kept racing with concurrent writes`, {
      details: { collection: name, id },
    });
  }

  async ack(docId: string, eventIds: readonly string[]): Promise<void> {
    const docs = () => this.#collection.docs();
    const acked = new Set(eventIds);
    for (let attempt = 0; attempt < MAX_RACE_RETRIES; attempt += 1) {
      const current: Pick<StoredDoc, 'outbox' | 'tombstone' | 'outboxPending'> | null =
        await docs().findOne(
          { _id: docId },
          { ...READ, projection: { outbox: 1, tombstone: 1, outboxPending: 1 } },
        );
      if (current === null) return;
      const outbox = current.outbox ?? [];
      const remaining = outbox.filter((event) => !acked.has(event.id));
      if (remaining.length === outbox.length && (remaining.length > 0 || !current.outboxPending))
        return;
      // Writers only ever append, so an unchanged length means an unchanged outbox: the condition
      // makes this read-modify-write safe against a write that lands in between (it then retries).
      const unchanged: Filter = { _id: docId, outbox: { $size: outbox.length } };
      if (remaining.length === 0 && current.tombstone) {
        const purged = await docs().deleteOne({ ...unchanged, tombstone: true });
        if (purged.deletedCount === 1) return;
        continue;
      }
      const update: UpdateFilter =
        remaining.length > 0
          ? { $set: { outbox: remaining } }
          : { $set: { outbox: [], outboxPending: false }, $unset: { outboxDueAt: '' } };
      const result = await docs().updateOne(unchanged, update);
      if (result.matchedCount === 1) return;
    }
    // Left as is: the events are published again on the next pass (at least once), never lost.
    const { name } = this.#collection;
    throw new AppError(
      'aborted',
      `${name} ${docId}: outbox ack kept racing with concurrent writes`,
      { details: { collection: name, id: docId } },
    );
  }

  async defer(docId: string, until: Date): Promise<void> {
    await this.#collection
      .docs()
      .updateOne({ _id: docId, outboxPending: true }, { $set: { outboxDueAt: until } });
  }

  async pendingOutbox(limit: number): Promise<PendingOutbox[]> {
    const found = await this.#collection
      .docs()
      .find(
        { outboxPending: true, outboxDueAt: { $lte: new Date() } },
        { ...READ, projection: { _id: 1, outbox: 1 } },
      )
      .sort({ outboxPending: 1, outboxDueAt: 1 })
      .limit(limit)
      .toArray();
    return found.map((stored): PendingOutbox => ({
      docId: stored._id,
      events: (stored.outbox ?? []).map(fromStoredEvent),
    }));
  }
}
