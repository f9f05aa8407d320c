/**
 * Posting lists over dense integer document numbers: what the search index intersects and unites.
 *
 * A list keeps its documents in one sorted `Int32Array` with room to grow: an add at the end (the
 * common case: new documents get the next number) is an append, any other add or delete moves the
 * tail by one. Queries get a view of it, made again only after a change, and intersect and merge
 * plain sorted integer arrays: no hashing, no object sets, a few nanoseconds per element. One list
 * is a handful of heap objects however long it is (the garbage collector visits objects, not
 * integers), and a list of one document is one object (the document in a field).
 */
export class PostingList {
  /**
   * The documents once there are two or more. A list of one document (most name words: a number,
   * a rare word) keeps it in `single` instead: an `Int32Array` is three heap objects (the array,
   * its buffer, its elements), and 100,000 events have about as many such words, each visited by
   * every major collection of the index's heap (catalog-indexer README, "Search index").
   */
  private items: Int32Array | undefined;
  /** The document while the list holds exactly one and `items` is undefined. */
  private single = 0;
  private length = 0;
  private view: Int32Array | undefined;

  get size(): number {
    return this.length;
  }

  add(doc: number): void {
    if (this.items === undefined) {
      if (this.length === 0) {
        this.single = doc;
        this.length = 1;
        return;
      }
      if (this.single === doc) return;
      this.items = new Int32Array(2);
      this.items[0] = Math.min(this.single, doc);
      this.items[1] = Math.max(this.single, doc);
      this.length = 2;
      this.view = undefined;
      return;
    }
    const at = this.lowerBound(doc);
    if (at < this.length && this.items[at] === doc) return;
    if (this.length === this.items.length) {
      const grown = new Int32Array(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    if (at < this.length) this.items.copyWithin(at + 1, at, this.length);
    this.items[at] = doc;
    this.length++;
    this.view = undefined;
  }

  delete(doc: number): void {
    if (this.items === undefined) {
      if (this.length === 1 && this.single === doc) this.length = 0;
      return;
    }
    const at = this.lowerBound(doc);
    if (at >= this.length || this.items[at] !== doc) return;
    this.items.copyWithin(at, at + 1, this.length);
    this.length--;
    this.view = undefined;
    if (this.length === 1) {
      // Back to one document: no array.
      this.single = this.items[0]!;
      this.items = undefined;
    } else if (this.items.length > 8 && this.length * 4 <= this.items.length) {
      // Give memory back once a list shrank to a quarter of its room.
      this.items = this.items.slice(0, this.items.length / 2);
    }
  }

  /**
   * The documents in ascending order: a view of the list itself, to read at once (a query runs
   * synchronously); a later change moves what it shows. The caller must not modify it. A list of
   * one document answers with a new array each time (kept, it would cost the objects saved).
   */
  docs(): Int32Array {
    if (this.items === undefined) return this.length === 0 ? NO_DOCS : Int32Array.of(this.single);
    return (this.view ??= this.items.subarray(0, this.length));
  }

  /** The first position whose document is >= `doc` (an append when `doc` is the highest). */
  private lowerBound(doc: number): number {
    const items = this.items!;
    let lo = 0;
    let hi = this.length;
    if (hi === 0 || items[hi - 1]! < doc) return hi;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (items[mid]! < doc) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

export const NO_DOCS: Int32Array = new Int32Array(0);

/** Adds `doc` to the list under `key`, creating the list. */
export function post(map: Map<string, PostingList>, key: string, doc: number): void {
  let list = map.get(key);
  if (!list) map.set(key, (list = new PostingList()));
  list.add(doc);
}

/** Removes `doc` from the list under `key`, dropping the list once empty. */
export function unpost(map: Map<string, PostingList>, key: string, doc: number): void {
  const list = map.get(key);
  if (!list) return;
  list.delete(doc);
  if (list.size === 0) map.delete(key);
}

/** The first index in `list` at or after `from` whose value is >= `value` (galloping search). */
function seek(list: Int32Array, value: number, from: number): number {
  let step = 1;
  let hi = from;
  while (hi < list.length && list[hi]! < value) {
    from = hi + 1;
    hi += step;
    step <<= 1;
  }
  if (hi > list.length) hi = list.length;
  while (from < hi) {
    const mid = (from + hi) >>> 1;
    if (list[mid]! < value) from = mid + 1;
    else hi = mid;
  }
  return from;
}

/** Documents in both sorted lists, sorted. Gallops through the longer one when sizes differ a lot. */
export function intersect(a: Int32Array, b: Int32Array): Int32Array {
  if (a.length > b.length) [a, b] = [b, a];
  const out = new Int32Array(a.length);
  let n = 0;
  if (a.length * 8 < b.length) {
    let j = 0;
    for (let i = 0; i < a.length && j < b.length; i++) {
      const v = a[i]!;
      j = seek(b, v, j);
      if (b[j] === v) out[n++] = v;
    }
  } else {
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      const x = a[i]!;
      const y = b[j]!;
      if (x === y) {
        out[n++] = x;
        i++;
        j++;
      } else if (x < y) i++;
      else j++;
    }
  }
  return out.subarray(0, n);
}

/** Documents in every list (AND), sorted; the smallest list first keeps each step cheap. */
export function intersectAll(lists: readonly Int32Array[]): Int32Array {
  if (lists.length === 0) return NO_DOCS;
  const bySize = [...lists].sort((x, y) => x.length - y.length);
  let out = bySize[0]!;
  for (let k = 1; k < bySize.length && out.length > 0; k++) out = intersect(out, bySize[k]!);
  return out;
}

/** Documents in any list (OR), sorted and each once. */
export function unite(lists: readonly Int32Array[]): Int32Array {
  if (lists.length === 0) return NO_DOCS;
  if (lists.length === 1) return lists[0]!;
  let length = 0;
  let max = -1;
  for (const list of lists) {
    length += list.length;
    if (list.length > 0 && list[list.length - 1]! > max) max = list[list.length - 1]!;
  }
  if (length * 16 >= max) {
    // Dense (a radius's venues, a market): mark each document, then read the marks in order;
    // linear in the documents and the highest number, no sort.
    const marks = new Uint8Array(max + 1);
    let count = 0;
    for (const list of lists) {
      for (let i = 0; i < list.length; i++) {
        const doc = list[i]!;
        if (marks[doc] === 0) {
          marks[doc] = 1;
          count++;
        }
      }
    }
    const out = new Int32Array(count);
    let n = 0;
    for (let doc = 0; doc <= max; doc++) if (marks[doc] === 1) out[n++] = doc;
    return out;
  }
  const all = new Int32Array(length);
  let at = 0;
  for (const list of lists) {
    all.set(list, at);
    at += list.length;
  }
  all.sort();
  let n = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[n++] = all[i]!;
  return all.subarray(0, n);
}
