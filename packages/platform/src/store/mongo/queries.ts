/**
 * `find` and `count` on MongoDB: paging and packing checked as the memory adapter checks them, the
 * portable `StoreFilter` (validated by ../filter.ts) translated to the stored shape, where domain
 * fields sit under `data`, `id` is `_id` and tombstones are never matched. Sorts always end with
 * `_id` so pages are stable, the memory adapter's tie-break. A due-time query in in-process mode
 * is answered by due-times.ts instead.
 */
import { checkFieldName, normalizeFilter } from '../filter.js';
import { isOperatorObject } from '../memory-query.js';
import { checkPaging } from '../memory-store.js';
import type { Packing } from '../packing.js';
import type { FindOptions, StoreFilter } from '../types.js';
import type { MongoCollection } from './collection.js';
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
async function findDocuments<T>(
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

export class StoreQueries<T> {
  readonly #collection: MongoCollection;
  readonly #packing: Packing | undefined;

  constructor(collection: MongoCollection, packing: Packing | undefined) {
    this.#collection = collection;
    this.#packing = packing;
  }

  async find(filter: StoreFilter<T> = {}, options: FindOptions<T> = {}): Promise<T[]> {
    const { skip, limit } = checkPaging(options);
    if (limit === 0) return [];
    this.#packing?.checkQuery(filter, options.sort);
    const { due } = this.#collection;
    const dueBy = due?.query(filter, options, skip);
    if (dueBy !== undefined && (await this.#collection.conditions()) === 'in-process')
      return due!.find<T>(dueBy, limit, (id) => this.#collection.read(id));
    return findDocuments<T>(() => this.#collection.docs(), filter, options.sort, skip, limit);
  }

  async count(filter: StoreFilter<T> = {}): Promise<number> {
    this.#packing?.checkQuery(filter);
    return this.#collection.docs().countDocuments(toMongoFilter(filter));
  }
}
