/**
 * The first `count` of a set of matching documents in a prebuilt sort order, without comparing
 * documents: each document's position in the order (its rank, a distinct integer below the number
 * of documents) is marked in a bit set, and the set is read from the lowest bit up until `count`
 * ranks are found. O(matches + documents / 32 + count), against O(matches × log count) comparisons
 * (plus moving a sorted array on each insert) for keeping the best so far.
 *
 * With a group per document (relevance: the number of words of the name), the order is by group,
 * then rank: the groups below the one where the `count`-th document falls are taken whole and
 * sorted (fewer than `count` documents), the rest of the page comes from that group's lowest ranks.
 */
export class RankSelector {
  private bits = new Uint32Array(0);
  private histogram = new Uint32Array(0);

  /**
   * Ranks (ascending; with groups: by group, then rank) of the first `count` of `docs[0..n)`.
   * `rank[doc]` must be distinct for the given documents and below `universe`.
   */
  select(
    docs: Int32Array,
    n: number,
    count: number,
    rank: Int32Array,
    universe: number,
    group?: Uint16Array,
  ): Int32Array {
    count = Math.min(count, n);
    if (count <= 0) return new Int32Array(0);
    if (!group) return this.lowestRanks(docs, n, count, rank, universe);
    // Relevance: how many documents each group holds, then the group the last wanted one is in.
    if (this.histogram.length < 0x10000) this.histogram = new Uint32Array(0x10000);
    const histogram = this.histogram;
    for (let i = 0; i < n; i++) histogram[group[docs[i]!]!]!++;
    let cut = 0;
    let before = 0;
    while (before + histogram[cut]! < count) before += histogram[cut++]!;
    for (let i = 0; i < n; i++) histogram[group[docs[i]!]!] = 0;
    // Documents of the lower groups, whole, sorted; then the lowest ranks of the cut group. The
    // matching documents are reordered in place: lower groups first, the cut group after them.
    let lower = 0;
    let inCut = 0;
    const cutDocs = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const d = docs[i]!;
      const g = group[d]!;
      if (g < cut) docs[lower++] = d;
      else if (g === cut) cutDocs[inCut++] = d;
    }
    const lowerDocs = Array.from(docs.subarray(0, lower)).sort(
      (a, b) => group[a]! - group[b]! || rank[a]! - rank[b]!,
    );
    const fromCut = this.lowestRanks(cutDocs, inCut, count - before, rank, universe);
    const out = new Int32Array(count);
    for (let i = 0; i < lower; i++) out[i] = rank[lowerDocs[i]!]!;
    out.set(fromCut, lower);
    return out;
  }

  /** The `count` lowest ranks of `docs[0..n)`, ascending. */
  private lowestRanks(
    docs: Int32Array,
    n: number,
    count: number,
    rank: Int32Array,
    universe: number,
  ): Int32Array {
    const words = (universe + 31) >>> 5;
    if (this.bits.length < words)
      this.bits = new Uint32Array(Math.max(words, this.bits.length * 2));
    const bits = this.bits;
    for (let i = 0; i < n; i++) {
      const r = rank[docs[i]!]!;
      bits[r >>> 5]! |= 1 << (r & 31);
    }
    const out = new Int32Array(count);
    let found = 0;
    for (let w = 0; w < words && found < count; w++) {
      let x = bits[w]!;
      while (x !== 0 && found < count) {
        const low = x & -x;
        out[found++] = (w << 5) + (31 - Math.clz32(low));
        x ^= low;
      }
    }
    // Leave the set empty for the next query (only the words this one touched).
    for (let i = 0; i < n; i++) bits[rank[docs[i]!]! >>> 5] = 0;
    return out;
  }
}
