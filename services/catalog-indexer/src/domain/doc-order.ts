import { NO_DOCS } from './postings.js';

/** Every live document in one sort order, and each document's position in it. */
export interface SortedDocs {
  /** Live documents, first to last. */
  docs: Int32Array;
  /** `rank[doc]` = position of `doc` in `docs` (meaningless for documents not in `docs`). */
  rank: Int32Array;
}

/**
 * One sort order of the index's documents, built on first use and then kept current: documents
 * touched since the last use are taken out and merged back in at their new place (O(n) copying
 * plus O(k log n) comparisons for k changes) instead of sorting everything again after every
 * change. An order whose comparison depends on other documents (popularity counts) is not
 * incremental: a touch rebuilds it on next use.
 */
export class DocOrder {
  private sorted: SortedDocs | undefined;
  private readonly pending = new Set<number>();

  constructor(
    private readonly compare: (a: number, b: number) => number,
    private readonly incremental: boolean,
  ) {}

  /** A document was added, changed or removed. */
  touch(doc: number): void {
    if (this.sorted === undefined) return;
    if (this.incremental) this.pending.add(doc);
    else this.sorted = undefined;
  }

  /** The order now; `live(doc)` says whether a document number holds an event. */
  current(capacity: number, live: (doc: number) => boolean): SortedDocs {
    let sorted = this.sorted;
    const pending = this.pending;
    if (sorted === undefined || pending.size > sorted.docs.length / 8 + 64) {
      sorted = this.build(capacity, live);
    } else if (pending.size > 0) {
      sorted = this.merge(sorted, capacity, live);
    }
    pending.clear();
    this.sorted = sorted;
    return sorted;
  }

  private build(capacity: number, live: (doc: number) => boolean): SortedDocs {
    const all = new Int32Array(capacity);
    let n = 0;
    for (let doc = 0; doc < capacity; doc++) if (live(doc)) all[n++] = doc;
    const docs = n === 0 ? NO_DOCS : all.subarray(0, n).sort(this.compare);
    return { docs, rank: rankOf(docs, capacity) };
  }

  private merge(sorted: SortedDocs, capacity: number, live: (doc: number) => boolean): SortedDocs {
    const compare = this.compare;
    const touched = new Uint8Array(capacity);
    for (const doc of this.pending) touched[doc] = 1;
    const kept = sorted.docs.filter((doc) => touched[doc] === 0);
    const added = Int32Array.from([...this.pending].filter(live)).sort(compare);
    const docs = new Int32Array(kept.length + added.length);
    let from = 0;
    let at = 0;
    for (let k = 0; k < added.length; k++) {
      const doc = added[k]!;
      // First kept document that sorts after `doc`.
      let lo = from;
      let hi = kept.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (compare(kept[mid]!, doc) <= 0) lo = mid + 1;
        else hi = mid;
      }
      docs.set(kept.subarray(from, lo), at);
      at += lo - from;
      docs[at++] = doc;
      from = lo;
    }
    docs.set(kept.subarray(from), at);
    return { docs, rank: rankOf(docs, capacity) };
  }
}

function rankOf(docs: Int32Array, capacity: number): Int32Array {
  const rank = new Int32Array(capacity);
  for (let i = 0; i < docs.length; i++) rank[docs[i]!] = i;
  return rank;
}
