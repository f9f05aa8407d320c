import type { VersionedStore, Versioned } from '@marquee/platform/store';
import type { SealedRecord, SealedRecordStore } from '../app/ports.js';
import type { EncryptedSecret } from '../domain/partner.js';

/**
 * A collection's sealed values as the re-seal sees them: `sealedOf` lists a document's sealed
 * values in a fixed order, `withSealed` puts re-sealed ones back in that order. The write is a
 * compare-and-set at the version read (a mutation of the stored document, so fields the re-seal
 * does not know are kept as stored), without outbox events: nothing a reader sees changes.
 */
export function sealedRecords<T extends Versioned & { id: string }>(
  name: string,
  store: VersionedStore<T>,
  sealedOf: (doc: T) => EncryptedSecret[],
  withSealed: (doc: T, sealed: readonly EncryptedSecret[]) => T,
): SealedRecordStore {
  const recordOf = (doc: T): SealedRecord => ({
    id: doc.id,
    version: doc.version,
    sealed: sealedOf(doc),
  });
  return {
    name,
    async page(after, limit) {
      // `id` is a field of every document; the cast only tells the filter type so.
      const filter = { id: { $gt: after } } as Parameters<VersionedStore<T>['find']>[0];
      const sort = { id: 1 } as NonNullable<Parameters<VersionedStore<T>['find']>[1]>['sort'];
      return (await store.find(filter, { sort, limit })).map(recordOf);
    },
    async get(id) {
      const doc = await store.get(id);
      return doc && recordOf(doc);
    },
    async reseal(record, sealed) {
      await store.update(record.id, record.version, (current) => withSealed(current, sealed));
    },
  };
}
