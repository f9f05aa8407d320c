/**
 * How a record's domain fields are written and read back: all under `data`, or, when the
 * collection packs (`CollectionOptions.pack`, ../packing.ts), the kept fields under `data` and the
 * rest as one BSON value in `packed`. Reads merge `packed` back whatever the options say, so a
 * collection packed once reads right after packing is turned off; a write of a collection that does
 * not pack removes any packed value. A packed document also holds `layout`, the kept fields it was
 * split by (`layoutOf`), so that documents split otherwise are found and rewritten (relayout.ts).
 */
import mongoose from 'mongoose';
import type { Packing } from '../packing.js';
import type { StoredDoc, UpdateFilter } from './stored.js';

export class PackedData {
  readonly #packing: Packing | undefined;
  /** The layout written with every packed document; undefined when the collection does not pack. */
  readonly layout: string | undefined;

  constructor(packing: Packing | undefined) {
    this.#packing = packing;
    this.layout = packing && layoutOf(packing.kept);
  }

  /** The update that writes `data` along with the store's own fields in `set`. */
  write(data: Record<string, unknown>, set: Record<string, unknown>): UpdateFilter {
    const { $set, $unset } = this.#dataUpdate(data);
    return { $set: { ...$set, ...set }, ...($unset ? { $unset } : {}) };
  }

  /** A document as inserted: packed, when the collection packs. */
  toInsert(fresh: StoredDoc): StoredDoc {
    if (this.#packing === undefined) return fresh;
    const { kept, packed } = this.#pack(fresh.data);
    return { ...fresh, data: kept, packed, layout: this.layout };
  }

  /**
   * The `$set` (and `$unset`) of a write of `data`: with packing, the kept fields under `data` and
   * the others as one BSON value; without, all under `data` and no packed value left behind.
   */
  #dataUpdate(data: Record<string, unknown>): Pick<UpdateFilter, '$set' | '$unset'> {
    if (this.#packing === undefined) return { $set: { data }, $unset: { packed: '' } };
    const { kept, packed } = this.#pack(data);
    return { $set: { data: kept, packed, layout: this.layout } };
  }

  #pack(data: Record<string, unknown>) {
    const kept: Record<string, unknown> = {};
    const rest: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(data)) {
      if (this.#packing!.kept.has(field)) kept[field] = value;
      else rest[field] = value;
    }
    return { kept, packed: new mongoose.mongo.Binary(mongoose.mongo.BSON.serialize(rest)) };
  }
}

/**
 * The layout of a packing collection: its kept fields, sorted, comma-separated. A document whose
 * `layout` differs was split by other fields (or, without one, before layouts were recorded).
 */
export function layoutOf(kept: ReadonlySet<string>): string {
  return [...kept].sort().join(',');
}

/** A stored document with its packed fields (`pack`) merged back under `data`. */
export function unpacked<D extends { data: Record<string, unknown>; packed?: unknown }>(doc: D): D {
  const { packed, ...rest } = doc;
  if (packed === undefined || packed === null) return doc;
  const bytes =
    packed instanceof Uint8Array
      ? packed
      : (packed as InstanceType<typeof mongoose.mongo.Binary>).buffer;
  const fields = mongoose.mongo.BSON.deserialize(bytes, { promoteBuffers: true });
  return { ...rest, data: { ...fields, ...doc.data } } as D;
}
