import { describe, expect, it } from 'vitest';
import { rememberingLatestHits } from '../src/adapters/tracking-cache.js';
import type { TrackingHit, TrackingRepository } from '../src/app/ports.js';

/** The store side: hits in a list, every lookup counted. */
function storeOfHits() {
  const hits: TrackingHit[] = [];
  let lookups = 0;
  const repository: TrackingRepository = {
    insert: async (hit) => {
      hits.push(hit);
    },
    latest: async (appId, eventId, since) => {
      lookups += 1;
      return hits
        .filter((h) => h.appId === appId && h.eventId === eventId && h.at >= since)
        .sort((a, b) => b.at.getTime() - a.at.getTime())[0];
    },
  };
  return { hits, repository, lookups: () => lookups };
}

const hit = (over: Partial<TrackingHit>): TrackingHit => ({
  id: `t-${Math.random()}`,
  appId: 'app-1',
  eventId: 'ev-1',
  sharedId: 's-1',
  subId1: '',
  subId2: '',
  subId3: '',
  sandbox: false,
  at: new Date(0),
  ...over,
});

describe('rememberingLatestHits', () => {
  const window = 60_000;
  const setup = (ttlMs = 1_000) => {
    let now = 1_000_000;
    const store = storeOfHits();
    const sut = rememberingLatestHits(store.repository, { ttlMs, now: () => now });
    const latest = (appId = 'app-1', eventId = 'ev-1') =>
      sut.latest(appId, eventId, new Date(now - window));
    return { store, sut, latest, advance: (ms: number) => (now += ms), now: () => now };
  };

  it('asks the store once per interval for each app and event', async () => {
    const { store, latest, advance } = setup();
    expect(await latest()).toBeUndefined();
    advance(500);
    expect(await latest()).toBeUndefined();
    expect(await latest('app-2')).toBeUndefined();
    expect(store.lookups()).toBe(2);
    advance(501);
    await latest();
    expect(store.lookups()).toBe(3);
  });

  it('sees a hit of its own process at once, and one of another replica after the interval', async () => {
    const { store, sut, latest, advance, now } = setup();
    expect(await latest()).toBeUndefined();
    const own = hit({ sharedId: 'own', at: new Date(now()) });
    await sut.insert(own);
    expect(await latest()).toEqual(own);
    advance(10);
    // Another replica records a newer one straight into the store.
    const other = hit({ sharedId: 'other', at: new Date(now()) });
    store.hits.push(other);
    expect((await latest())?.sharedId).toBe('own');
    advance(1_000);
    expect((await latest())?.sharedId).toBe('other');
  });

  it('lets a remembered hit fall out of the window as time passes', async () => {
    const { sut, latest, advance, now } = setup(10 * window);
    await latest();
    await sut.insert(hit({ at: new Date(now()) }));
    advance(window - 1);
    expect(await latest()).toBeDefined();
    advance(2);
    expect(await latest()).toBeUndefined();
  });

  it('asks the store every time with an interval of 0', async () => {
    const { store, latest } = setup(0);
    await latest();
    await latest();
    expect(store.lookups()).toBe(2);
  });
});
