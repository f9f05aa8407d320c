import { describe, expect, it } from 'vitest';
import { TokenCache } from '../../src/adapters/token-cache.js';

function issuer(lifetimeMs = 1_000) {
  let issued = 0;
  const calls: (() => void)[] = [];
  return {
    get issued() {
      return issued;
    },
    calls,
    issue: () => {
      issued += 1;
      const n = issued;
      return new Promise<{ accessToken: string; expiresInMs: number }>((resolve) =>
        calls.push(() => resolve({ accessToken: `t${n}`, expiresInMs: lifetimeMs })),
      );
    },
  };
}

describe('TokenCache', () => {
  it('shares one token request between concurrent callers', async () => {
    const source = issuer();
    const sut = new TokenCache(source.issue, () => 0);
    const all = Promise.all([sut.get(), sut.get(), sut.get()]);
    source.calls.forEach((resolve) => resolve());
    expect(await all).toEqual(['t1', 't1', 't1']);
    expect(source.issued).toBe(1);
  });

  it('reuses the token until 80 % of its lifetime, then refreshes', async () => {
    const source = issuer(1_000);
    let now = 0;
    const sut = new TokenCache(source.issue, () => now);
    const first = sut.get();
    source.calls.shift()!();
    expect(await first).toBe('t1');
    now = 799;
    expect(await sut.get()).toBe('t1');
    now = 800;
    const second = sut.get();
    source.calls.shift()!();
    expect(await second).toBe('t2');
  });

  it('fetches a new token after the partner refused the cached one', async () => {
    const source = issuer();
    const sut = new TokenCache(source.issue, () => 0);
    const first = sut.get();
    source.calls.shift()!();
    sut.invalidate(await first);
    const second = sut.get();
    source.calls.shift()!();
    expect(await second).toBe('t2');
    sut.invalidate('t1'); // a stale refusal does not drop the newer token
    expect(await sut.get()).toBe('t2');
  });

  it('lets the next caller retry after a failed token request', async () => {
    let fail = true;
    const sut = new TokenCache(async () => {
      if (fail) throw new Error('down');
      return { accessToken: 'ok', expiresInMs: 1_000 };
    });
    await expect(sut.get()).rejects.toThrow('down');
    fail = false;
    expect(await sut.get()).toBe('ok');
  });
});
