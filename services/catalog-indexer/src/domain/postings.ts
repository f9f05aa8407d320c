/**
 * Posting lists over dense integer document numbers: what the search index intersects and unites.
 *
 * A list takes adds and deletes as a set and hands queries a sorted `Int32Array`, rebuilt only when
 * the list changed since the last query. Queries then intersect and merge plain sorted integer
 * arrays: no hashing, no object sets, a few nanoseconds per element.
 */
export class PostingList {
  private readonly members = new Set<number>();
  private sorted: Int32Array | undefined;

  get size(): number {
    return this.members.size;
  }

  add(doc: number): void {
    if (this.members.has(doc)) return;
    this.members.add(doc);
    this.sorted = undefined;
  }

  delete(doc: number): void {
    if (this.members.delete(doc)) this.sorted = undefined;
  }

  /** The documents in ascending order; the caller must not modify it. */
  docs(): Int32Array {
    if (this.sorted === undefined) this.sorted = Int32Array.from(this.members).sort();
    return this.sorted;
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
