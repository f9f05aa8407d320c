/**
 * The relay lease of a collection: one document per collection (`_id` its name) in the lease
 * collection (default `outbox_leases`), so that one relay at a time relays it. Taken and released
 * under the connection's mutex, so the relays of one process never race each other for it.
 */
import type { MongoCollection } from './collection.js';
import { isDuplicateKey } from './stored.js';

export function acquireLease(
  collection: MongoCollection,
  owner: string,
  ttlMs: number,
): Promise<boolean> {
  const { name, leaseCollection } = collection;
  return collection.mutex.run(`${leaseCollection}\u0000${name}`, async () => {
    const now = new Date();
    try {
      const lease = await collection
        .leases()
        .findOneAndUpdate(
          { _id: name, $or: [{ owner }, { expiresAt: { $lte: now } }] },
          { $set: { owner, expiresAt: new Date(now.getTime() + ttlMs) } },
          { upsert: true, returnDocument: 'after' },
        );
      return lease?.owner === owner;
    } catch (error) {
      // Held by someone else: the filter missed, so the upsert tried to insert the same _id.
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  });
}

export async function releaseLease(collection: MongoCollection, owner: string): Promise<void> {
  const { name, leaseCollection } = collection;
  await collection.mutex.run(`${leaseCollection}\u0000${name}`, async () => {
    await collection.leases().deleteOne({ _id: name, owner });
  });
}
