import { createMemoryBus } from '@marquee/platform/bus';
import { waitFor } from '@marquee/platform/testing';
import { Event } from '@marquee/proto/catalog/v1';
import { eventChangedTopic } from '@marquee/proto/topics';
import { afterEach, describe, expect, it } from 'vitest';
import { anEvent, aNewDeal, criteria, memoryStorage, northOf } from './builders.js';
import { cachedVenueDirectory } from '../src/adapters/catalog-venue-directory.js';
import { publicIdOf } from '../src/domain/public-id.js';
import { eventChangedHandler } from '../src/ports/kafka/event-changed-handler.js';
import { DealsApp } from '../src/app/deals-app.js';
import type { VenueDirectory, VenueLocation } from '../src/app/ports.js';

const now = new Date('2030-01-15T12:00:00Z');
const garden = { latitude: 40.7505, longitude: -73.9934 };

/** A fake catalog: `known` venues answer their location (null = known without coordinates). */
function fakeCatalog(known: Map<string, VenueLocation | null>) {
  const asked: string[] = [];
  let down = false;
  const directory: VenueDirectory = {
    async locate(id) {
      asked.push(id);
      if (down) throw Object.assign(new Error('catalog unreachable'), { kind: 'unavailable' });
      return known.get(id);
    },
  };
  return { directory, asked, setDown: (value: boolean) => (down = value) };
}

function setup(known = new Map<string, VenueLocation | null>()) {
  const storage = memoryStorage();
  const catalog = fakeCatalog(known);
  let ids = 0;
  const app = new DealsApp({
    deals: storage.deals,
    events: storage.events,
    clock: { now: () => now },
    ids: { dealId: () => `D${++ids}` },
    venues: catalog.directory,
  });
  return { app, storage, catalog };
}

/** An event whose venue is a discovery id reference (no coordinates in `event-changed`). */
const referencing = (venueId: string, overrides = {}) =>
  anEvent({
    venue: { id: venueId, name: 'Referenced', number: publicIdOf('venue', venueId) },
    ...overrides,
  });

describe('venue resolution through the catalog', () => {
  it('stores the coordinates the catalog holds; the result shows them and a radius search finds the event', async () => {
    const { app, storage } = setup(new Map([['ZV1', garden]]));
    const event = referencing('ZV1');

    await app.applyEvent(event);
    await app.createDeal(aNewDeal(event.id));

    expect((await storage.events.get(event.id))!.venue).toMatchObject({ id: 'ZV1', ...garden });
    const near = { ...northOf(garden, 5), radius: 10, unit: 'kilometers' as const };
    const result = app.search(criteria({ near }));
    expect(result.hits.map((h) => h.event.id)).toEqual([event.id]);
    expect(result.hits[0]!.event.venue).toMatchObject(garden);
  });

  it('stores a venue the catalog does not know yet as unresolved (no radius match), then resolves it again', async () => {
    const known = new Map<string, VenueLocation | null>();
    const { app, storage } = setup(known);
    const event = referencing('ZV2');
    const near = { ...garden, radius: 10, unit: 'kilometers' as const };

    expect(await app.applyEvent(event)).toBe(true);
    await app.createDeal(aNewDeal(event.id));
    expect((await storage.events.get(event.id))!.venue).toMatchObject({ unresolved: true });
    expect(app.pendingVenueCount()).toBe(1);
    expect(app.search(criteria({ near })).hits).toEqual([]);
    expect(await app.resolvePendingVenues()).toBe(0); // still unknown: stays pending

    known.set('ZV2', garden);
    expect(await app.resolvePendingVenues()).toBe(1);

    const stored = (await storage.events.get(event.id))!;
    expect(stored.venue).toEqual({ ...event.venue, ...garden });
    expect(app.pendingVenueCount()).toBe(0);
    expect(app.search(criteria({ near })).hits.map((h) => h.event.id)).toEqual([event.id]);
  });

  it('keeps pending venues across a restart (rebuilt from storage) and lets a newer state win', async () => {
    const known = new Map<string, VenueLocation | null>();
    const { app, storage, catalog } = setup(known);
    const event = referencing('ZV6');
    await app.applyEvent(event);

    const restarted = new DealsApp({
      deals: storage.deals,
      events: storage.events,
      clock: { now: () => now },
      ids: { dealId: () => 'X' },
      venues: catalog.directory,
    });
    await restarted.load();
    expect(restarted.pendingVenueCount()).toBe(1);

    // A newer state with an inline place arrives before the catalog knows ZV6.
    await restarted.applyEvent({ ...anEvent({ id: event.id }), eventVersion: 2 });
    known.set('ZV6', { latitude: 1, longitude: 1 });
    expect(await restarted.resolvePendingVenues()).toBe(0);
    expect((await storage.events.get(event.id))!.venue!.latitude).toBe(garden.latitude);
  });

  it('lets a catalog failure through (the record is retried) and stores nothing', async () => {
    const { app, storage, catalog } = setup(new Map([['ZV3', garden]]));
    catalog.setDown(true);
    const event = referencing('ZV3');

    await expect(app.applyEvent(event)).rejects.toMatchObject({ kind: 'unavailable' });
    expect(await storage.events.get(event.id)).toBeUndefined();
  });

  it('keeps a known venue without coordinates as it is, and never asks for places, source references or stale states', async () => {
    const { app, storage, catalog } = setup(new Map([['ZV4', null]]));
    const named = referencing('ZV4');
    await app.applyEvent(named);
    expect((await storage.events.get(named.id))!.venue!.latitude).toBeUndefined();

    await app.applyEvent(anEvent()); // inline coordinates (a place)
    await app.applyEvent(referencing('source:pub:v9')); // unresolved publisher reference
    await app.applyEvent(named); // same version again: stale
    expect(catalog.asked).toEqual(['ZV4']);
  });

  it('through the bus: an unreachable catalog fails the record, which is retried with backoff until it answers', async () => {
    const { app, storage, catalog } = setup(new Map([['ZV5', garden]]));
    catalog.setDown(true);
    const bus = createMemoryBus({
      source: 'test',
      retry: { initialBackoffMs: 5, maxBackoffMs: 20 },
    });
    await bus.subscribe(
      eventChangedTopic,
      { group: 'deals', fromBeginning: true, maxAttempts: 1_000 },
      eventChangedHandler(app),
    );
    await bus.start();
    try {
      const event = Event.fromPartial({
        id: 'E42',
        version: 1,
        active: true,
        location: {
          $case: 'venue',
          value: { ref: { $case: 'id', value: 'ZV5' }, names: { values: { en: 'Hall' } } },
        },
      });
      await bus.publish(eventChangedTopic, [
        { key: 'E42', value: { event, changedAt: new Date() } },
      ]);
      await waitFor(() => catalog.asked.length >= 3, { timeoutMs: 5_000 });
      expect(await storage.events.get('E42')).toBeUndefined();

      catalog.setDown(false);
      await waitFor(async () => (await storage.events.get('E42')) !== undefined, {
        timeoutMs: 5_000,
      });
      expect((await storage.events.get('E42'))!.venue).toMatchObject({ id: 'ZV5', ...garden });
      expect(bus.records('event-changed.dlq')).toEqual([]);
    } finally {
      await bus.close();
    }
  });
});

describe('cachedVenueDirectory', () => {
  let clock = 0;
  afterEach(() => (clock = 0));

  it('asks once per known venue within the TTL, always again for an unknown one', async () => {
    const known = new Map<string, VenueLocation | null>([['A', garden]]);
    const catalog = fakeCatalog(known);
    const sut = cachedVenueDirectory(catalog.directory, {
      ttlMs: 1_000,
      maxEntries: 10,
      now: () => clock,
    });

    expect(await sut.locate('A')).toEqual(garden);
    expect(await sut.locate('A')).toEqual(garden);
    expect(await sut.locate('B')).toBeUndefined();
    expect(await sut.locate('B')).toBeUndefined();
    clock = 1_001;
    await sut.locate('A');

    expect(catalog.asked).toEqual(['A', 'B', 'B', 'A']);
  });

  it('holds at most maxEntries venues', async () => {
    const catalog = fakeCatalog(
      new Map([
        ['A', garden],
        ['B', garden],
        ['C', null],
      ]),
    );
    const sut = cachedVenueDirectory(catalog.directory, { ttlMs: 1_000, maxEntries: 2 });
    for (const id of ['A', 'B', 'C', 'A']) await sut.locate(id);
    expect(catalog.asked).toEqual(['A', 'B', 'C', 'A']);
  });
});
