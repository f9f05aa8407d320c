import { eventChangedTopic } from '@marquee/proto/topics';
import { createOutboxEvent } from '@marquee/platform/outbox';
import type { StoreIndex, VersionedStore } from '@marquee/platform/store';
import type { PublishedEventRepository } from '../app/ports.js';
import type { PublishedEvent } from '../domain/published-event.js';
import { toCatalogEvent } from './catalog-event.js';

/**
 * One stored published event. The body is kept as a JSON string: a publisher's unknown properties
 * may have keys with `.` or a leading `$`, or arrays inside arrays, which FerretDB cannot store as
 * a document (docs/architecture.md), and the body is only ever read back whole.
 */
export interface StoredPublishedEvent {
  id: string;
  version: number;
  appId: string;
  publisherVersion: number | null;
  sourceId: string;
  bodyJson: string;
  createdAt: Date;
  updatedAt: Date;
  /** Digest of the app and the `Idempotency-Key` of the publication that created it, if any. */
  publicationKey?: string;
}

export const PUBLISHED_EVENTS_COLLECTION = 'published_events';

export const publishedEventIndexes: readonly StoreIndex<StoredPublishedEvent>[] = [
  // An app's events, newest publication first (ListEvents).
  { fields: { appId: 1, createdAt: -1 } },
];

/**
 * Which event a publication key (digest of the app and its `Idempotency-Key`) created, named by
 * the key itself: a retried publication finds its event with two reads by id, however many events
 * are stored (a query on the event's fields would scan the collection on the dev/CI server).
 */
export interface StoredPublicationKey {
  id: string;
  version: number;
  eventId: string;
  createdAt: Date;
}

export const PUBLICATION_KEYS_COLLECTION = 'publication_keys';

const toStored = (event: PublishedEvent): StoredPublishedEvent => ({
  id: event.id,
  version: event.version,
  appId: event.appId,
  publisherVersion: event.publisherVersion,
  sourceId: String((event.body.source as { id?: unknown } | undefined)?.id ?? ''),
  bodyJson: JSON.stringify(event.body),
  createdAt: event.createdAt,
  updatedAt: event.updatedAt,
  ...(event.publicationKey ? { publicationKey: event.publicationKey } : {}),
});

const fromStored = (stored: StoredPublishedEvent): PublishedEvent => ({
  id: stored.id,
  version: stored.version,
  appId: stored.appId,
  publisherVersion: stored.publisherVersion,
  body: JSON.parse(stored.bodyJson) as Record<string, unknown>,
  createdAt: stored.createdAt,
  updatedAt: stored.updatedAt,
  ...(stored.publicationKey ? { publicationKey: stored.publicationKey } : {}),
});

/** `event-changed` for a state: the whole event, keyed by its id (compacted topic). */
const changed = (event: PublishedEvent) =>
  createOutboxEvent(eventChangedTopic, {
    key: event.id,
    value: { event: toCatalogEvent(event), changedAt: event.updatedAt },
    time: event.updatedAt,
  });

/**
 * The repository over a platform versioned store: the memory store in the embedded default and unit
 * tests, the Mongo store in distributed mode. Each write carries its `event-changed` record in the
 * same single-document write (outbox); the relay publishes it.
 */
export function createPublishedEventRepository(
  store: VersionedStore<StoredPublishedEvent>,
  keys: VersionedStore<StoredPublicationKey>,
): PublishedEventRepository {
  return {
    async get(id) {
      const stored = await store.get(id);
      return stored && fromStored(stored);
    },
    async findByPublicationKey(appId, publicationKey, since) {
      const key = await keys.get(publicationKey);
      if (!key || key.createdAt.getTime() < since.getTime()) return undefined;
      const stored = await store.get(key.eventId);
      // Absent: the event of that attempt was never written (the key is written first).
      return stored && stored.appId === appId ? fromStored(stored) : undefined;
    },
    async listByApp(appId, { limit, after }) {
      if (!after) {
        const newest = await store.find({ appId }, { sort: { createdAt: -1 }, limit });
        return newest.map(fromStored);
      }
      // Keyset paging on (createdAt desc, id asc) with a filter that has no `$or`: the rest of the
      // cursor's instant first, then everything older.
      const sameInstant = await store.find(
        { appId, createdAt: after.createdAt, id: { $gt: after.id } },
        { sort: { id: 1 }, limit },
      );
      const older =
        sameInstant.length >= limit
          ? []
          : await store.find(
              { appId, createdAt: { $lt: after.createdAt } },
              { sort: { createdAt: -1 }, limit: limit - sameInstant.length },
            );
      return [...sameInstant, ...older].map(fromStored);
    },
    async create(event) {
      const state = { ...event, version: 1 };
      if (event.publicationKey) {
        // The key first, then the event: a crash in between leaves a key naming no event, which a
        // retry treats as unused; the other order could leave an event its retry cannot find.
        const named = { id: event.publicationKey, eventId: event.id, createdAt: event.createdAt };
        try {
          await keys.insert(named);
        } catch (error) {
          if ((error as { kind?: unknown }).kind !== 'already_exists') throw error;
          // Used before, outside the window or by an attempt that never wrote its event.
          await keys.modify(named.id, (current) => ({ ...current, ...named }));
        }
      }
      const stored = await store.insert(toStored(state), { events: [changed(state)] });
      return fromStored(stored);
    },
    async replace(event, expectedVersion) {
      const state = { ...event, version: expectedVersion + 1 };
      const stored = await store.update(event.id, expectedVersion, toStored(state), {
        events: [changed(state)],
      });
      return fromStored(stored);
    },
    async remove(event) {
      // A tombstone: the record's key with a null value (compaction then forgets the event).
      const tombstone = createOutboxEvent(eventChangedTopic, { key: event.id, value: null });
      const deleted = await store.delete(event.id, event.version, { events: [tombstone] });
      if (!deleted) {
        throw Object.assign(new Error(`published event ${event.id} not found`), {
          kind: 'not_found' as const,
        });
      }
    },
  };
}
