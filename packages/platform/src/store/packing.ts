import { invalidDocument } from './errors.js';
import type { StoreIndex } from './types.js';

/**
 * `PackOption` of a collection, checked: the fields that stay fields of the stored document, and
 * a check that a filter or a sort names only those. Both adapters run the check, so a query that
 * works in memory works on Mongo too.
 */
export interface Packing {
  readonly kept: ReadonlySet<string>;
  /** Throws `invalid_argument` when `fields` name a packed field. */
  checkQueried(fields: Iterable<string>): void;
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
    checkQueried(fields) {
      for (const field of fields) {
        if (!kept.has(field))
          throw invalidDocument(
            `${collection}: "${field}" is packed; filter and sort on ${[...kept].join(', ')} only`,
            { field },
          );
      }
    },
  };
}
