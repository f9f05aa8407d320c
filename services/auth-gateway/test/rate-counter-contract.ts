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
      expect(Math.max(...results)).toBe(20);
      expect(await sut.add(key, 0, until)).toBe(20);
    });
  });
}
