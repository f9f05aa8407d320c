import { describe, expect, it } from 'vitest';
import { RankSelector } from '../../src/domain/top-ranks.js';

/** Deterministic pseudo-random numbers in (0, 1) (Lehmer, MINSTD), so a failure reproduces. */
function random(seed: number) {
  let s = seed;
  return () => (s = (s * 48271) % 2147483647) / 2147483647;
}

/** A random order of `universe` documents: rank[doc] = its position. */
function shuffledRanks(next: () => number, universe: number): Int32Array {
  const order = Int32Array.from({ length: universe }, (_, i) => i);
  for (let i = universe - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const rank = new Int32Array(universe);
  order.forEach((doc, position) => (rank[doc] = position));
  return rank;
}

/** Distinct random document numbers below `universe`, how many also random. */
const randomMatching = (next: () => number, universe: number) => [
  ...new Set(
    Array.from({ length: Math.floor(next() * universe) }, () => Math.floor(next() * universe)),
  ),
];

describe('RankSelector', () => {
  it('picks the lowest ranks of the matching documents, as sorting them all would', () => {
    const next = random(3);
    const sut = new RankSelector();
    for (let round = 0; round < 300; round++) {
      const universe = 1 + Math.floor(next() * 5_000);
      const rank = shuffledRanks(next, universe);
      const matching = randomMatching(next, universe);
      const count = Math.floor(next() * 1_100);
      const expected = matching
        .map((d) => rank[d]!)
        .sort((a, b) => a - b)
        .slice(0, count);

      const got = sut.select(Int32Array.from(matching), matching.length, count, rank, universe);

      expect([...got]).toEqual(expected);
    }
  });

  it('orders by group first, then rank (relevance), as sorting them all would', () => {
    const next = random(5);
    const sut = new RankSelector();
    for (let round = 0; round < 300; round++) {
      const universe = 1 + Math.floor(next() * 3_000);
      const rank = shuffledRanks(next, universe);
      // Few distinct groups, as name word counts are; sometimes a high one.
      const group = Uint16Array.from({ length: universe }, () =>
        next() < 0.01 ? 60_000 : 1 + Math.floor(next() * 6),
      );
      const matching = randomMatching(next, universe);
      const count = Math.floor(next() * 700);
      const expected = [...matching]
        .sort((a, b) => group[a]! - group[b]! || rank[a]! - rank[b]!)
        .slice(0, count)
        .map((d) => rank[d]!);

      const got = sut.select(
        Int32Array.from(matching),
        matching.length,
        count,
        rank,
        universe,
        group,
      );

      expect([...got]).toEqual(expected);
    }
  });

  it('reads only the first n documents given and forgets each query', () => {
    const sut = new RankSelector();
    const rank = Int32Array.from([4, 3, 2, 1, 0]);
    const docs = Int32Array.from([0, 1, 4, 3]);

    expect([...sut.select(docs, 2, 5, rank, 5)]).toEqual([3, 4]);
    expect([...sut.select(Int32Array.from([2]), 1, 5, rank, 5)]).toEqual([2]);
    expect([...sut.select(docs, 0, 5, rank, 5)]).toEqual([]);
  });
});
