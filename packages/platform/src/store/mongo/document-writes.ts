/**
 * `insert`, `update` and `modify` of the Mongo adapter, the same in both write modes: the mode
 * (write-mode.ts) says which filter keeps the write's condition, whether the version is checked
 * here first, and what to do around a write that records events. Each runs under the document's
 * mutex (taken by the store). Inserts are atomic on both servers (unique `_id`).
 */
import { AppError } from '../../errors/index.js';
import type { OutboxEvent } from '../../outbox/types.js';
import { alreadyExists, invalidDocument, notFound, versionConflict } from '../errors.js';
import { portableEvents, splitDocument } from '../portable.js';
import type { Draft, Modification, ModifyOptions, Mutation, Versioned } from '../types.js';
import type { MongoCollection } from './collection.js';
import { unpacked } from './packed-data.js';
import type { StoredDoc, StoredEvent } from './stored.js';
import {
  duplicateOnOtherIndex,
  isDuplicateKey,
  MAX_RACE_RETRIES,
  READ,
  toDocument,
  withEvents,
} from './stored.js';
import type { WriteMode } from './write-mode.js';

export class DocumentWrites<T extends Versioned> {
  readonly #collection: MongoCollection;
  readonly #mode: () => Promise<WriteMode>;

  constructor(collection: MongoCollection, mode: () => Promise<WriteMode>) {
    this.#collection = collection;
    this.#mode = mode;
  }

  async insert(id: string, data: Record<string, unknown>, events: OutboxEvent[]): Promise<T> {
    const { name } = this.#collection;
    // Whether a marker was there before this insert's first one (in-process mode; see `mark`).
    let markedBefore: boolean | undefined;
    for (let attempt = 0; attempt < MAX_RACE_RETRIES; attempt += 1) {
      const now = new Date();
      const fresh: StoredDoc = {
        _id: id,
        version: 1,
        data,
        tombstone: false,
        outbox: events as StoredEvent[],
        outboxPending: events.length > 0,
        ...(events.length > 0 ? { outboxDueAt: now } : {}),
      };
      try {
        const mode = await this.#mode();
        const existed = await mode.beforeEvents(id, events);
        markedBefore ??= existed;
        const doc = this.#collection.data.toInsert(fresh);
        // Without events, concurrent inserts of the collection share one command.
        if (events.length === 0) await this.#collection.inserts.insert(doc);
        else await this.#collection.docs().insertOne(doc);
        mode.written(id, fresh, events.length > 0);
        this.#collection.notify(events);
        return toDocument<T>(fresh);
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        const revived = await this.#revive(id, data, events, now, markedBefore, error);
        if (revived !== undefined) return revived;
      }
    }
    throw alreadyExists(name, id);
  }

  /**
   * After an insert clashed: the id may belong to a tombstone still waiting for the relay, then
   * re-created over it, its queued events first so the stream says "deleted" before "created
   * again". `undefined`: try the insert again (the tombstone went meanwhile).
   */
  async #revive(
    id: string,
    data: Record<string, unknown>,
    events: OutboxEvent[],
    now: Date,
    markedBefore: boolean | undefined,
    clash: unknown,
  ): Promise<T | undefined> {
    const { name } = this.#collection;
    const docs = () => this.#collection.docs();
    const existing = await docs().findOne(
      { _id: id },
      { projection: { tombstone: 1, version: 1 } },
    );
    if (existing === null) {
      // Either the tombstone was purged meanwhile (try again) or another unique index clashed.
      if (duplicateOnOtherIndex(clash)) throw alreadyExists(name, id, clash);
      return undefined;
    }
    if (!existing.tombstone) throw alreadyExists(name, id, clash);
    const mode = await this.#mode();
    let revived: StoredDoc | null;
    try {
      // The marker written before the insert attempt stays: this process holds the mutex.
      revived = await docs().findOneAndUpdate(
        mode.filter(id, { tombstone: true, version: existing.version }),
        withEvents(
          this.#collection.data.write(data, { tombstone: false, version: existing.version + 1 }),
          events,
          now,
          markedBefore === false,
        ),
        { ...READ, returnDocument: 'after' },
      );
    } catch (reviveError) {
      throw isDuplicateKey(reviveError) ? alreadyExists(name, id, reviveError) : reviveError;
    }
    if (revived === null) return undefined;
    revived = unpacked(revived);
    mode.written(id, revived, events.length > 0);
    this.#collection.notify(events);
    return toDocument<T>(revived);
  }

  async update(
    id: string,
    expectedVersion: number,
    change: Draft<T> | Mutation<T>,
    events: OutboxEvent[],
  ): Promise<T> {
    const { name } = this.#collection;
    const mode = await this.#mode();
    let next: Draft<T> = change as Draft<T>;
    if (typeof change === 'function' || mode.readsBeforeUpdate) {
      const current = await this.#collection.read(id);
      if (current === null) throw notFound(name, id);
      if (current.version !== expectedVersion)
        throw versionConflict(name, id, expectedVersion, current.version);
      if (typeof change === 'function') next = change(toDocument<T>(current));
    }
    return this.#writeAt(id, expectedVersion, next, events, mode);
  }

  /**
   * `modify`: one read and one write. In-process mode cannot lose a race (the caller holds the
   * document's mutex); on MongoDB a conflict means another process wrote in between: read again.
   */
  async modify(
    id: string,
    change: Modification<T>,
    eventsOf: ModifyOptions<T>['events'],
  ): Promise<T | undefined> {
    const { name } = this.#collection;
    const mode = await this.#mode();
    for (let attempt = 0; attempt < MAX_RACE_RETRIES; attempt += 1) {
      const current = await this.#collection.read(id);
      if (current === null) return undefined;
      const before = toDocument<T>(current);
      const next = change(toDocument<T>(current));
      if (next === undefined) return before;
      const events = portableEvents(eventsOf?.(before, next));
      try {
        return await this.#writeAt(id, current.version, next, events, mode);
      } catch (error) {
        if ((error as { kind?: unknown }).kind !== 'aborted') throw error;
      }
    }
    throw new AppError('aborted', `${name} ${id}: modify kept racing with concurrent writes`, {
      details: { collection: name, id },
    });
  }

  /** The write of `update`: `next` at `expectedVersion` + 1 (checked first by in-process mode). */
  async #writeAt(
    id: string,
    expectedVersion: number,
    next: Draft<T>,
    events: OutboxEvent[],
    mode: WriteMode,
  ): Promise<T> {
    const { name } = this.#collection;
    const { id: nextId, data } = splitDocument(next);
    if (nextId !== id)
      throw invalidDocument(`${name} ${id}: an update cannot change the id`, { id, nextId });
    let updated: StoredDoc | null;
    try {
      const replace = (await mode.beforeEvents(id, events)) === false;
      updated = await this.#collection
        .docs()
        .findOneAndUpdate(
          mode.filter(id, { version: expectedVersion, tombstone: false }),
          withEvents(
            this.#collection.data.write(data, { version: expectedVersion + 1 }),
            events,
            new Date(),
            replace,
          ),
          { ...READ, returnDocument: 'after' },
        );
      if (updated !== null) updated = unpacked(updated);
    } catch (error) {
      throw isDuplicateKey(error) ? alreadyExists(name, id, error) : error;
    }
    if (updated === null) {
      // The filter did not match: tell "gone" from "changed meanwhile".
      const current = await this.#collection.readVersion(id);
      if (current === null) throw notFound(name, id);
      throw versionConflict(name, id, expectedVersion, current.version);
    }
    mode.written(id, updated, events.length > 0);
    this.#collection.notify(events);
    return toDocument<T>(updated);
  }
}
