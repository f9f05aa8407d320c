import { invalidDocument } from './errors.js';
import { checkFieldName } from './filter.js';
import type { StoreIndex } from './types.js';

/**
 * `CollectionOptions.pack` of a collection, checked: the fields that stay fields of the stored
 * document, and a check that a query names only those. Both adapters run the check, so a query
 * that works in memory works on Mongo too.
 */
export interface Packing {
  readonly kept: ReadonlySet<string>;
  /**
   * Throws `invalid_argument` when the filter (its fields with a condition) or the sort names a
   * packed field, or a field that is no top-level name (as `normalizeFilter` would).
   */
  checkQuery(filter: object, sort?: object): void;
}

/** The packing of a collection (`undefined` when it packs nothing). */
export function packingOf<T>(
  collection: string,
  pack: { keep: readonly string[] } | undefined,
  indexes: readonly StoreIndex<T>[] = [],
): Packing | undefined {
  if (pack === undefined) return undefined;
  const kept = new Set<string>(['id', 'version', ...pack.keep]);
  for (const index of indexes) for (const field of Object.keys(index.fields)) kept.add(field);
  return {
    kept,
    checkQuery(filter, sort = {}) {
      const filtered = Object.entries(filter).filter(([, condition]) => condition !== undefined);
      for (const field of [...filtered.map(([name]) => name), ...Object.keys(sort)]) {
        checkFieldName(field);
        if (!kept.has(field))
          throw invalidDocument(
            `${collection}: "${field}" is packed; filter and sort on ${[...kept].join(', ')} only`,
            { field },
          );
      }
    },
  };
}
