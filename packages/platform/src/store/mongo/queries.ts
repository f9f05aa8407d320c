/**
 * `find` and `count` on MongoDB: the portable `StoreFilter` (validated by ../filter.ts, the same
 * check as the memory adapter's) translated to the stored shape, where domain fields sit under
 * `data`, `id` is `_id` and tombstones are never matched. Sorts always end with `_id` so pages are
 * stable, the memory adapter's tie-break. (A due-time query in in-process mode does not come here:
 * due-times.ts answers it.)
 */
import { checkFieldName, normalizeFilter } from '../filter.js';
import { isOperatorObject } from '../memory-query.js';
import { unpacked } from './packed-data.js';
import type { Collection, Filter, StoredDoc } from './stored.js';
import { DOCUMENT_PROJECTION, READ, toDocument } from './stored.js';

/** Where a top-level field of a document is stored. */
export function storedPath(field: string): string {
  checkFieldName(field);
  if (field === 'id') return '_id';
  if (field === 'version') return 'version';
  return `data.${field}`;
}

export function toMongoFilter(filter: object): Filter {
  const portable = normalizeFilter(filter);
  const out: Record<string, unknown> = { tombstone: false };
  for (const [field, condition] of Object.entries(portable)) {
    // `$eq` so that an object value is matched as a value, never read as operators.
    out[storedPath(field)] = isOperatorObject(condition) ? condition : { $eq: condition };
  }
  return out as Filter;
}

/** The live documents matching `filter`, sorted, one page (paging checked by the caller). */
export async function findDocuments<T>(
  docs: () => Collection<StoredDoc>,
  filter: object,
  sortBy: object | undefined,
  skip: number,
  limit: number | undefined,
): Promise<T[]> {
  const sort: Record<string, 1 | -1> = {};
  for (const [field, direction] of Object.entries(sortBy ?? {})) {
    if (direction === 1 || direction === -1) sort[storedPath(field)] = direction;
  }
  if (!('_id' in sort)) sort._id = 1; // stable pages, same tie-break as the memory adapter
  let cursor = docs()
    .find(toMongoFilter(filter), { ...READ, projection: DOCUMENT_PROJECTION })
    .sort(sort)
    .skip(skip);
  if (limit !== undefined) cursor = cursor.limit(limit);
  return (await cursor.toArray()).map((stored) => toDocument<T>(unpacked(stored)));
}
