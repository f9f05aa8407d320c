/**
 * What the one writing process keeps of a collection in in-process mode (see ../README.md): the
 * outbox of each document it left events in, the documents it wrote in the last second, the state
 * of the marker scan, the acknowledged markers not yet removed and the due times of a `due` index.
 * One memory (and one mutex) per connection and collection: every store of a collection in this
 * process writes through the same memory, and every write and relay ack takes the same mutex.
 */
import type { Connection } from 'mongoose';
import { toPortable } from '../portable.js';
import { KeyedMutex } from '../keyed-mutex.js';
import type { StoredDoc, StoredEvent } from './stored.js';

/** In-process mode: a document's outbox as this process last wrote it. */
export interface KnownOutbox {
  outbox: StoredEvent[];
  tombstone: boolean;
  /** When the relay should take them (epoch ms): the write's time, or later after a failure. */
  dueAt: number;
}

/** A document as this process last wrote it, and when. */
interface WrittenDocument {
  version: number;
  data: Record<string, unknown>;
  writtenAt: number;
}

/** Markers whose documents' events are all published, not yet removed (outbox-markers.ts). */
export interface Settling {
  /** Waiting for the next removal, with when they were acknowledged (epoch ms). */
  ids: Map<string, number>;
  /** In a removal under way: the removal, and when they were acknowledged. */
  removing: Map<string, { removal: Promise<unknown>; at: number }>;
  timer?: NodeJS.Timeout;
}

/** The due times of a collection's `due` field (due-times.ts). */
export interface DueState {
  /** Document id → due time (epoch ms); documents without one are absent. */
  times: Map<string, number>;
  /** The load under way, if any, and the writes made while it runs (applied over its result). */
  loading?: Promise<void>;
  writesDuringLoad?: Map<string, number | undefined>;
  loadedAt: number;
}

/**
 * Bound on remembered outboxes per collection: a backlog beyond it (a long bus outage) is read
 * from the documents again, as after a restart, instead of growing memory with it.
 */
const MAX_KNOWN_OUTBOXES = 10_000;
/**
 * How long a document this process wrote is answered from memory instead of read again: long
 * enough for the writes of one request or one short workflow (a reserve, its completion and its
 * release), short enough that an edit made by hand in the database shows within a second.
 */
export const WRITTEN_TRUSTED_MS = 1_000;
/** Bound on remembered written documents per collection; the oldest go first. */
const MAX_WRITTEN_DOCUMENTS = 10_000;

export class CollectionMemory {
  /** Document id → its pending outbox as this process wrote it. */
  readonly outboxes = new Map<string, KnownOutbox>();
  /** When the markers were last read, and whether the memory lost track of one since. */
  readonly markerScan = { at: Number.NEGATIVE_INFINITY, needed: true };
  readonly due: DueState = { times: new Map(), loadedAt: Number.NEGATIVE_INFINITY };
  readonly written = new Map<string, WrittenDocument>();
  readonly settling: Settling = { ids: new Map(), removing: new Map() };

  /** After a write under the mutex: what the document's outbox now is. */
  remember(
    id: string,
    stored: Pick<StoredDoc, 'outbox' | 'tombstone'>,
    dueAt = this.outboxes.get(id)?.dueAt ?? Date.now(),
  ): void {
    const outbox = stored.outbox ?? [];
    if (outbox.length === 0) this.outboxes.delete(id);
    else if (this.outboxes.has(id) || this.outboxes.size < MAX_KNOWN_OUTBOXES)
      this.outboxes.set(id, { outbox, tombstone: stored.tombstone, dueAt });
    // Not remembered: the relay reads the markers at its next pass to find it.
    else this.markerScan.needed = true;
  }

  /**
   * After a write that stored `stored` whole: the document, and its outbox when the write left
   * events. A write without events leaves the stored outbox as it was: still pending if remembered
   * as such, else settled events that the next write with events replaces.
   */
  rememberWritten(id: string, stored: StoredDoc, withNewEvents: boolean): void {
    const written = this.written;
    written.delete(id);
    const now = Date.now();
    // In write order, oldest first: what is past its second goes, so memory holds only the last
    // second's writes (and at most MAX_WRITTEN_DOCUMENTS of them), whatever their size.
    for (const [oldest, entry] of written) {
      if (now - entry.writtenAt < WRITTEN_TRUSTED_MS && written.size < MAX_WRITTEN_DOCUMENTS) break;
      written.delete(oldest);
    }
    if (!stored.tombstone) {
      // A copy: what the write answers its caller shares objects with `stored.data`.
      const data = toPortable(stored.data) as Record<string, unknown>;
      written.set(id, { version: stored.version, data, writtenAt: now });
    }
    // Due now, as its marker (`OutboxMarkers.mark`).
    if (withNewEvents) this.remember(id, stored, now);
    else {
      const pending = this.outboxes.get(id);
      if (pending !== undefined) this.outboxes.set(id, { ...pending, tombstone: stored.tombstone });
    }
  }

  /** After a delete or a tombstone: nothing of the document is remembered. */
  forget(id: string): void {
    this.outboxes.delete(id);
    this.written.delete(id);
  }

  /**
   * After a write the driver failed, which may or may not have reached the server: nothing of the
   * document is trusted, and the relay reads the markers at its next pass.
   */
  lostTrack(id: string): void {
    this.outboxes.delete(id);
    this.markerScan.needed = true;
    this.written.delete(id);
  }

  /** The document as this process wrote it within `WRITTEN_TRUSTED_MS`, as a private copy. */
  recent(id: string): StoredDoc | undefined {
    const recent = this.written.get(id);
    if (recent === undefined) return undefined;
    if (Date.now() - recent.writtenAt < WRITTEN_TRUSTED_MS)
      return {
        _id: id,
        version: recent.version,
        data: toPortable(recent.data) as Record<string, unknown>,
        tombstone: false,
        outbox: [],
        outboxPending: false,
      };
    this.written.delete(id);
    return undefined;
  }
}

const memories = new WeakMap<Connection, Map<string, CollectionMemory>>();

export function memoryFor(connection: Connection, collection: string): CollectionMemory {
  let byCollection = memories.get(connection);
  if (byCollection === undefined) {
    byCollection = new Map();
    memories.set(connection, byCollection);
  }
  let memory = byCollection.get(collection);
  if (memory === undefined) {
    memory = new CollectionMemory();
    byCollection.set(collection, memory);
  }
  return memory;
}

// One mutex per connection, shared by every store (and so every relay ack) that uses it.
const mutexes = new WeakMap<Connection, KeyedMutex>();

export function mutexFor(connection: Connection): KeyedMutex {
  let mutex = mutexes.get(connection);
  if (mutex === undefined) {
    mutex = new KeyedMutex();
    mutexes.set(connection, mutex);
  }
  return mutex;
}
