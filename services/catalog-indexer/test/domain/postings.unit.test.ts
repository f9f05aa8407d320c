import { describe, expect, it } from 'vitest';
import { DocOrder } from '../../src/domain/doc-order.js';
import { intersect, intersectAll, PostingList, unite } from '../../src/domain/postings.js';

/** Deterministic pseudo-random numbers in (0, 1) (Lehmer, MINSTD), so a failure reproduces. */
function random(seed: number) {
  let s = seed;
  return () => (s = (s * 48271) % 2147483647) / 2147483647;
}

const sortedSet = (next: () => number, size: number, range: number) =>
  Int32Array.from(new Set(Array.from({ length: size }, () => Math.floor(next() * range)))).sort();

describe('posting lists', () => {
  it('keeps its documents sorted and each once, across adds and deletes', () => {
    const sut = new PostingList();
    for (const doc of [5, 1, 9, 1, 3]) sut.add(doc);
    expect([...sut.docs()]).toEqual([1, 3, 5, 9]);
    sut.delete(5);
    sut.add(7);
    expect([...sut.docs()]).toEqual([1, 3, 7, 9]);
    expect(sut.size).toBe(4);
  });

  it('goes between none, one and two documents without losing or repeating one', () => {
    const next = random(11);
    const sut = new PostingList();
    const expected = new Set<number>();
    for (let step = 0; step < 5_000; step++) {
      // Four possible documents: the list keeps crossing the one-document form both ways.
      const doc = Math.floor(next() * 4) * 7;
      if (next() < 0.5) {
        sut.add(doc);
        expected.add(doc);
      } else {
        sut.delete(doc);
        expected.delete(doc);
      }
      expect([...sut.docs()]).toEqual([...expected].sort((x, y) => x - y));
      expect(sut.size).toBe(expected.size);
    }
    const one = new PostingList();
    one.add(3);
    one.add(3);
    one.delete(4);
    expect([...one.docs()]).toEqual([3]);
    one.delete(3);
    expect(one.docs()).toHaveLength(0);
    expect(one.size).toBe(0);
  });

  it('matches a set through random adds and deletes, growing and shrinking its room', () => {
    const next = random(7);
    const sut = new PostingList();
    const expected = new Set<number>();
    for (let step = 0; step < 20_000; step++) {
      const doc = Math.floor(next() * 3_000);
      // Adds win early, deletes later: the list grows to most of the range, then empties.
      if (next() < (step < 10_000 ? 0.8 : 0.1)) {
        sut.add(doc);
        expected.add(doc);
      } else {
        sut.delete(doc);
        expected.delete(doc);
      }
      if (step % 997 === 0) {
        expect([...sut.docs()]).toEqual([...expected].sort((x, y) => x - y));
      }
    }
    expect([...sut.docs()]).toEqual([...expected].sort((x, y) => x - y));
    expect(sut.size).toBe(expected.size);
    for (const doc of [...expected]) sut.delete(doc);
    expect(sut.size).toBe(0);
    expect([...sut.docs()]).toEqual([]);
  });

  it('hands out the same view until a change, then a new one', () => {
    const sut = new PostingList();
    for (const doc of [4, 2, 8]) sut.add(doc);
    const before = sut.docs();
    expect(sut.docs()).toBe(before);
    sut.add(6);
    expect([...sut.docs()]).toEqual([2, 4, 6, 8]);
  });

  it('intersects and unites like sets do, with linear and galloping merges', () => {
    const next = random(42);
    for (let round = 0; round < 200; round++) {
      // Sizes from equal to 1:1000, so both merge strategies run.
      const a = sortedSet(next, 1 + Math.floor(next() * 50), 5_000);
      const b = sortedSet(next, 1 + Math.floor(next() * 3_000), 5_000);
      const c = sortedSet(next, 1 + Math.floor(next() * 500), 5_000);
      const inB = new Set(b);
      const inC = new Set(c);
      expect([...intersect(a, b)]).toEqual([...a].filter((d) => inB.has(d)));
      expect([...intersect(b, a)]).toEqual([...a].filter((d) => inB.has(d)));
      expect([...intersectAll([b, a, c])]).toEqual([...a].filter((d) => inB.has(d) && inC.has(d)));
      expect([...unite([a, b, c])]).toEqual([...new Set([...a, ...b, ...c])].sort((x, y) => x - y));
    }
  });

  it('gives nothing for no lists or an empty one', () => {
    expect(intersectAll([]).length).toBe(0);
    expect(intersectAll([Int32Array.of(1, 2), new Int32Array(0)]).length).toBe(0);
    expect(unite([]).length).toBe(0);
  });
});

describe('DocOrder', () => {
  it('merges changed documents back into place exactly as a full sort orders them', () => {
    const next = random(7);
    const keys: (number | undefined)[] = Array.from({ length: 2_000 }, () =>
      Math.floor(next() * 300),
    );
    // Ties on the key break by document number, as the index's comparators break them by id.
    const compare = (a: number, b: number) => keys[a]! - keys[b]! || a - b;
    const live = (doc: number) => keys[doc] !== undefined;
    const sut = new DocOrder(compare, true);
    const expected = () =>
      keys
        .map((key, doc) => (key === undefined ? -1 : doc))
        .filter((doc) => doc >= 0)
        .sort(compare);

    expect([...sut.current(keys.length, live).docs]).toEqual(expected());
    for (let round = 0; round < 50; round++) {
      // A few changes per round: new keys, removals, documents added at the end.
      for (let k = 0; k < 1 + Math.floor(next() * 20); k++) {
        const doc = Math.floor(next() * (keys.length + 5));
        keys[doc] = next() < 0.2 ? undefined : Math.floor(next() * 300);
        sut.touch(doc);
      }
      const { docs, rank } = sut.current(keys.length, live);
      expect([...docs]).toEqual(expected());
      for (let i = 0; i < docs.length; i++) expect(rank[docs[i]!]).toBe(i);
    }
  });

  it('rebuilds a non-incremental order after any touch (its comparison reads other documents)', () => {
    const weights = [3, 1, 2];
    const sut = new DocOrder((a, b) => weights[a]! - weights[b]!, false);
    expect([...sut.current(3, () => true).docs]).toEqual([1, 2, 0]);
    weights[1] = 9; // changed without a touch of doc 1: another document's change is what is seen
    sut.touch(0);
    expect([...sut.current(3, () => true).docs]).toEqual([2, 0, 1]);
  });
});
