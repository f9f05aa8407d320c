/**
 * Rewrites, once, the live documents of a packing collection whose stored `layout` is not the
 * current one: a field kept since a document was written stays inside its packed value, where no
 * filter finds it. Each is split by the fields kept now; its content and version stay as they are,
 * so no writer's compare-and-set is disturbed and nothing is relayed.
 *
 * One scan of the collection for the ids to rewrite, then each under its document's mutex,
 * conditional on the version and layout read (`server` mode), in batches. Idempotent and
 * resumable: a rewritten document no longer matches, so a call after a crash or a second replica
 * running at the same time rewrites only what is left (a document both reach is written by one;
 * the other's condition fails or finds the same bytes). A document written meanwhile by this build
 * is already split the new way; one written by an older build (rolling deploy) is rewritten by the
 * next call.
 */
import type { MongoCollection } from './collection.js';
import { unpacked } from './packed-data.js';
import { DOCUMENT_PROJECTION, READ, type Filter } from './stored.js';

/** Documents rewritten before the process lets other work run. */
const RELAYOUT_BATCH = 100;

/** Resolves with how many documents this call rewrote; `0` at once when the collection does not pack. */
export async function relayout(
  collection: MongoCollection,
  batch = RELAYOUT_BATCH,
): Promise<number> {
  const layout = collection.data.layout;
  if (layout === undefined) return 0;
  const stale = { tombstone: false, layout: { $ne: layout } } as Filter;
  const ids = (
    await collection
      .docs()
      .find(stale, { projection: { _id: 1 } })
      .toArray()
  ).map((found) => found._id);
  let rewritten = 0;
  for (let at = 0; at < ids.length; at += batch) {
    for (const id of ids.slice(at, at + batch)) {
      if (await collection.locked(id, () => rewrite(collection, id, layout))) rewritten += 1;
    }
    // Between batches, the writes of requests waiting for the event loop go first.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return rewritten;
}

async function rewrite(collection: MongoCollection, id: string, layout: string): Promise<boolean> {
  const stored = await collection
    .docs()
    .findOne({ _id: id }, { ...READ, projection: { ...DOCUMENT_PROJECTION, layout: 1 } });
  if (stored === null || stored.tombstone || stored.layout === layout) return false;
  const { $set } = collection.data.write(unpacked(stored).data, {});
  const local = (await collection.conditions()) === 'in-process';
  const found = await collection
    .docs()
    .findOneAndUpdate(
      local
        ? { _id: id }
        : { _id: id, version: stored.version, tombstone: false, layout: { $ne: layout } },
      { $set: $set! },
    );
  return found !== null;
}
