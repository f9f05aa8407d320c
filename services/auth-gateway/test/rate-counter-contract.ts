import { describe, expect, it } from 'vitest';
import type { RateCounter } from '../src/app/ports.js';

/** The RateCounter port, on memory and on the Mongo-wire server. */
export function rateCounterContract(name: string, make: () => Promise<RateCounter>): void {
  describe(name, () => {
    it('adds and gives back per key, returning the count after the change', async () => {
      const sut = await make();
      const key = `k-${Math.random()}`;
      const until = Date.now() + 60_000;
      expect(await sut.add(key, 1, until)).toBe(1);
      expect(await sut.add(key, 2, until)).toBe(3);
      expect(await sut.add(key, -1, until)).toBe(2);
      expect(await sut.add(`${key}-other`, 1, until)).toBe(1);
    });

    it('counts every one of many concurrent calls', async () => {
      const sut = await make();
      const key = `c-${Math.random()}`;
      const until = Date.now() + 60_000;
      const results = await Promise.all(Array.from({ length: 20 }, () => sut.add(key, 1, until)));
      // Each call has the count it would have had alone: 1 to 20, each once.
      expect([...results].sort((a, b) => a - b)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      expect(await sut.add(key, 0, until)).toBe(20);
    });

    it('answers each of concurrent calls of different amounts by its own share', async () => {
      const sut = await make();
      const key = `m-${Math.random()}`;
      const until = Date.now() + 60_000;
      const amounts = [3, 1, 5, 2, 4];
      const results = await Promise.all(amounts.map((amount) => sut.add(key, amount, until)));
      expect(await sut.add(key, 0, until)).toBe(15);
      // Some order of the calls gives these counts: each is the previous plus the call's amount.
      const steps = results
        .map((count, i) => ({ count, amount: amounts[i]! }))
        .sort((a, b) => a.count - a.amount - (b.count - b.amount));
      let previous = 0;
      for (const step of steps) {
        expect(step.count - step.amount).toBe(previous);
        previous = step.count;
      }
    });

    it('with a lease, still gives every call its own count, running ahead by at most the lease', async () => {
      const sut = await make();
      const key = `l-${Math.random()}`;
      const until = Date.now() + 60_000;
      const results: number[] = [];
      // Rounds of calls, as a busy key sees them: later rounds are served from units taken ahead.
      // (Across processes the counts stay distinct because each lease is one atomic $inc on
      // MongoDB; the dev/CI server runs one auth-gateway process.)
      for (let round = 0; round < 5; round += 1)
        results.push(
          ...(await Promise.all(
            Array.from({ length: 12 }, () => sut.add(key, 1, until, { lease: 16 })),
          )),
        );
      expect(new Set(results).size).toBe(60);
      expect(Math.min(...results)).toBeGreaterThanOrEqual(1);
      const stored = await sut.add(key, 0, until);
      expect(stored).toBeGreaterThanOrEqual(60);
      expect(stored).toBeLessThanOrEqual(60 + 16);
      expect(Math.max(...results)).toBeLessThanOrEqual(stored);
    });
  });
}
