import { isWriteRace, retryingConflicts } from '@marquee/platform/kernel';
import { createOutboxEvent } from '@marquee/platform/outbox';
import type { VersionedStore } from '@marquee/platform/store';
import { dealChangedTopic } from '@marquee/proto/topics';
import type { DealEventRepository, DealRepository } from '../app/ports.js';
import type { Deal } from '../domain/deal.js';
import type { DealEvent } from '../domain/deal-event.js';
import { toDealMessage } from './deal-message.js';

/** A projected event as stored: the store owns `version`; the event's own version is `eventVersion`. */
export type DealEventDocument = DealEvent & { version: number };

/**
 * Deals on a platform versioned store (memory or Mongo: the same code, one contract suite).
 * Each write carries the deal's `deal-changed` (key = event id) in the document's outbox.
 */
export function storeDealRepository(store: VersionedStore<Deal>): DealRepository {
  const changed = (deal: Deal) =>
    createOutboxEvent(dealChangedTopic, {
      key: deal.eventId,
      value: { deal: toDealMessage(deal), changedAt: deal.updatedAt },
      time: deal.updatedAt,
    });
  return {
    get: (id) => store.get(id),
    async create(draft) {
      const deal: Deal = { ...draft, version: 1 };
      return store.insert(deal, { events: [changed(deal)] });
    },
    async update(id, expectedVersion, next) {
      const deal: Deal = { ...next, id, version: expectedVersion + 1 };
      return store.update(id, expectedVersion, deal, { events: [changed(deal)] });
    },
    list: () => store.find({}),
    listByEvent: (eventId) => store.find({ eventId }),
  };
}

const withoutStoreVersion = ({ version: _version, ...event }: DealEventDocument): DealEvent =>
  event;

/** The event projection on a platform versioned store; `put` is compare-and-set on `eventVersion`. */
export function storeDealEventRepository(
  store: VersionedStore<DealEventDocument>,
): DealEventRepository {
  return {
    async get(id) {
      const doc = await store.get(id);
      return doc && withoutStoreVersion(doc);
    },
    async put(event) {
      // Two consumers of one key never race inside a partition, but a retry after a conflict is
      // cheap and keeps the method correct on its own.
      return retryingConflicts(
        async () => {
          const current = await store.get(event.id);
          if (current && current.eventVersion >= event.eventVersion) return false;
          if (current) await store.update(event.id, current.version, { ...event });
          else await store.insert({ ...event });
          return true;
        },
        { isConflict: isWriteRace },
      );
    },
    async setVenue(id, eventVersion, venue) {
      return retryingConflicts(async () => {
        const current = await store.get(id);
        if (!current || current.deleted || current.eventVersion !== eventVersion) return false;
        const { venue: _old, ...rest } = current;
        await store.update(id, current.version, { ...rest, ...(venue ? { venue } : {}) });
        return true;
      });
    },
    async list() {
      const docs = await store.find({ deleted: false });
      return docs.map(withoutStoreVersion);
    },
  };
}
