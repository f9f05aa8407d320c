import { dealChangedTopic } from '@marquee/proto/topics';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  anEvent,
  aNewDeal,
  criteria,
  memoryStorage,
  northOf,
  type TestStorage,
} from '../builders.js';
import type { DealEvent } from '../../src/domain/deal-event.js';
import { publicIdOf } from '../../src/domain/public-id.js';
import type { DealSearchCriteria } from '../../src/domain/search.js';
import { DealsApp } from '../../src/app/deals-app.js';

const now = new Date('2030-01-15T12:00:00Z');
let storage: TestStorage;
let sut: DealsApp;
let ids = 0;

beforeEach(() => {
  storage = memoryStorage();
  sut = new DealsApp({
    deals: storage.deals,
    events: storage.events,
    clock: { now: () => now },
    ids: { dealId: () => `D${++ids}` },
  });
});

/** Projects the event and puts one deal on it. */
async function withDeal(event: DealEvent, deal: Partial<{ exclusivity: string }> = {}) {
  await sut.applyEvent(event);
  return sut.createDeal(aNewDeal(event.id, deal));
}

const eventIds = (c: Partial<DealSearchCriteria> = {}) =>
  sut.search(criteria(c)).hits.map((h) => h.event.id);

describe('deals as records', () => {
  it('creates an active deal on a known event and records deal-changed keyed by the event id', async () => {
    const event = anEvent();
    await sut.applyEvent(event);

    const deal = await sut.createDeal(aNewDeal(event.id));

    expect(deal).toMatchObject({
      eventId: event.id,
      state: 'active',
      version: 1,
      offerCode: 'TWOFORONE',
    });
    const [pending] = await storage.outboxSources[0]!.pendingOutbox(10);
    expect(pending!.events).toHaveLength(1);
    const recorded = pending!.events[0]!;
    expect(recorded).toMatchObject({ topic: 'deal-changed', key: event.id });
    const message = dealChangedTopic.codec.decode(recorded.value!);
    expect(message.deal).toMatchObject({
      id: deal.id,
      name: 'Two for one',
      state: 'DEAL_STATE_ACTIVE',
      version: 1,
    });
  });

  it('refuses a deal on an unknown or deleted event (not_found)', async () => {
    await expect(sut.createDeal(aNewDeal('nope'))).rejects.toMatchObject({ kind: 'not_found' });
    const event = anEvent();
    await sut.applyEvent(event);
    await sut.deleteEvent(event.id);
    await expect(sut.createDeal(aNewDeal(event.id))).rejects.toMatchObject({ kind: 'not_found' });
  });

  it.each([
    [{ name: ' ' }, /dealName/],
    [{ description: '' }, /dealDescription/],
    [{ exclusivity: 'SOMETIMES' }, /exclusivity/],
    [{ name: 'x'.repeat(201) }, /dealName/],
    [{ offerCode: 'x'.repeat(101) }, /dealOfferCode/],
  ])('refuses bad fields %o (invalid_argument)', async (bad, message) => {
    const event = anEvent();
    await sut.applyEvent(event);
    await expect(sut.createDeal(aNewDeal(event.id, bad))).rejects.toMatchObject({
      kind: 'invalid_argument',
      message: expect.stringMatching(message),
    });
  });

  it('updates texts and exclusivity, bumps the version, and search shows the new state', async () => {
    const event = anEvent();
    const deal = await withDeal(event);

    const updated = await sut.updateDeal(deal.id, {
      name: 'Half price',
      description: 'Fifty percent off',
      exclusivity: 'NONEXCLUSIVE',
      expectedVersion: 1,
    });

    expect(updated).toMatchObject({ version: 2, name: 'Half price', exclusivity: 'NONEXCLUSIVE' });
    expect(updated.offerCode).toBeUndefined();
    const [hit] = sut.search(criteria()).hits;
    expect(hit!.deals.map((d) => d.name)).toEqual(['Half price']);
    expect(eventIds({ exclusivities: ['EXCLUSIVE'] })).toEqual([]);
  });

  it('refuses an update at a stale version (aborted) and on an ended deal (failed_precondition)', async () => {
    const deal = await withDeal(anEvent());
    const change = { name: 'n', description: 'd', exclusivity: 'EXCLUSIVE' };
    await expect(sut.updateDeal(deal.id, { ...change, expectedVersion: 7 })).rejects.toMatchObject({
      kind: 'aborted',
    });
    await sut.endDeal(deal.id);
    await expect(sut.updateDeal(deal.id, change)).rejects.toMatchObject({
      kind: 'failed_precondition',
    });
    await expect(sut.updateDeal('missing', change)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('ends a deal: it leaves search, ending again is a no-op without a new event', async () => {
    const event = anEvent();
    const deal = await withDeal(event);

    const ended = await sut.endDeal(deal.id);
    const again = await sut.endDeal(deal.id);

    expect(ended).toMatchObject({ state: 'ended', version: 2 });
    expect(again.version).toBe(2);
    expect(eventIds()).toEqual([]);
    expect(sut.search(criteria({ dealId: deal.id })).totalHits).toBe(0);
    const [pending] = await storage.outboxSources[0]!.pendingOutbox(10);
    const states = pending!.events.map((e) => dealChangedTopic.codec.decode(e.value!).deal!.state);
    expect(states).toEqual(['DEAL_STATE_ACTIVE', 'DEAL_STATE_ENDED']);
  });
});

describe('replicas', () => {
  it("indexes another replica's deal writes from deal-changed, the newest version only", async () => {
    // Another replica: the same deals collection, a projection of its own.
    const other = new DealsApp({
      deals: storage.deals,
      events: memoryStorage().events,
      clock: { now: () => now },
      ids: { dealId: () => `R${++ids}` },
    });
    const event = anEvent();
    await sut.applyEvent(event);
    await other.applyEvent(event);

    const deal = await other.createDeal(aNewDeal(event.id));
    expect(eventIds()).toEqual([]);
    expect(sut.applyDealChange(deal)).toBe(true);
    expect(eventIds()).toEqual([event.id]);
    expect(sut.applyDealChange(deal)).toBe(false); // the same state again

    const ended = await other.endDeal(deal.id);
    expect(sut.applyDealChange(ended)).toBe(true);
    expect(sut.applyDealChange(deal)).toBe(false); // a replayed older state does not revive it
    expect(eventIds()).toEqual([]);
  });

  it('ignores the echo of its own writes', async () => {
    const event = anEvent();
    const deal = await withDeal(event);
    expect(sut.applyDealChange(deal)).toBe(false);
    expect(eventIds()).toEqual([event.id]);
  });
});

describe('event projection', () => {
  it('applies only newer versions, so a redelivered old state cannot overwrite a new one', async () => {
    const event = anEvent({ name: 'v2 name', eventVersion: 2 });
    await withDeal(event);

    expect(await sut.applyEvent({ ...event, eventVersion: 1, name: 'v1 name' })).toBe(false);
    expect(await sut.applyEvent({ ...event, eventVersion: 2, name: 'again' })).toBe(false);
    expect(sut.search(criteria()).hits[0]!.event.name).toBe('v2 name');
    expect(await sut.applyEvent({ ...event, eventVersion: 3, name: 'v3 name' })).toBe(true);
    expect(sut.search(criteria()).hits[0]!.event.name).toBe('v3 name');
  });

  it('a tombstone ends the event deals, each announced with deal-changed', async () => {
    const event = anEvent();
    const first = await withDeal(event);
    const second = await sut.createDeal(aNewDeal(event.id, { exclusivity: 'NONEXCLUSIVE' }));
    await sut.endDeal(second.id);

    expect(await sut.endDealsOfDeletedEvent(event.id)).toBe(1);
    expect(await sut.endDealsOfDeletedEvent(event.id)).toBe(0); // a redelivery: nothing left

    expect(await sut.getDeal(first.id)).toMatchObject({ state: 'ended', version: 2 });
    expect(await sut.getDeal(second.id)).toMatchObject({ state: 'ended', version: 2 });
    const pending = await storage.outboxSources[0]!.pendingOutbox(10);
    const firstStates = pending
      .find((p) => p.docId === first.id)!
      .events.map((e) => dealChangedTopic.codec.decode(e.value!).deal!.state);
    expect(firstStates).toEqual(['DEAL_STATE_ACTIVE', 'DEAL_STATE_ENDED']);
  });

  it('a tombstone removes the event from search; an older redelivery does not bring it back', async () => {
    const event = anEvent({ eventVersion: 4 });
    await withDeal(event);

    await sut.deleteEvent(event.id);
    await sut.applyEvent({ ...event, eventVersion: 4 });

    expect(eventIds()).toEqual([]);
    expect(await sut.deleteEvent('never-seen')).toBe(false);
  });

  it('rebuilds the same search results from storage after a restart', async () => {
    const a = anEvent({ startAt: new Date('2030-03-01T00:00:00Z') });
    const b = anEvent({ startAt: new Date('2030-02-01T00:00:00Z') });
    await withDeal(a);
    const ended = await withDeal(b);
    await withDeal(b, { exclusivity: 'NONEXCLUSIVE' });
    await sut.endDeal(ended.id);

    const restarted = new DealsApp({
      deals: storage.deals,
      events: storage.events,
      clock: { now: () => now },
      ids: { dealId: () => 'unused' },
    });
    await restarted.load();

    expect(restarted.search(criteria())).toEqual(sut.search(criteria()));
    expect(restarted.search(criteria()).hits.map((h) => [h.event.id, h.deals.length])).toEqual([
      [b.id, 1],
      [a.id, 1],
    ]);
  });
});

describe('deals search parameters', () => {
  it('returns only events with an active deal, ordered by event date, with totalHits', async () => {
    const late = anEvent({ startAt: new Date('2030-09-01T00:00:00Z') });
    const early = anEvent({ startAt: new Date('2030-04-01T00:00:00Z') });
    const undated = anEvent({ startAt: undefined });
    const withoutDeal = anEvent();
    await withDeal(late);
    await withDeal(early);
    await withDeal(undated);
    await sut.applyEvent(withoutDeal);

    const result = sut.search(criteria());

    expect(result.hits.map((h) => h.event.id)).toEqual([early.id, late.id, undated.id]);
    expect(result.totalHits).toBe(3);
  });

  it('exclusivities: only events with a deal of an asked exclusivity, and only those deals', async () => {
    const exclusive = anEvent();
    const open = anEvent();
    const both = anEvent();
    await withDeal(exclusive, { exclusivity: 'EXCLUSIVE' });
    await withDeal(open, { exclusivity: 'NONEXCLUSIVE' });
    await withDeal(both, { exclusivity: 'EXCLUSIVE' });
    await withDeal(both, { exclusivity: 'NONEXCLUSIVE' });

    const onlyExclusive = sut.search(criteria({ exclusivities: ['EXCLUSIVE'] }));

    expect(onlyExclusive.hits.map((h) => h.event.id).sort()).toEqual(
      [both.id, exclusive.id].sort(),
    );
    for (const hit of onlyExclusive.hits)
      expect(hit.deals.map((d) => d.exclusivity)).toEqual(['EXCLUSIVE']);
    expect(eventIds({ exclusivities: ['NONEXCLUSIVE'] }).sort()).toEqual([both.id, open.id].sort());
    expect(eventIds().length).toBe(3);
  });

  it('marketIds: any listed market; an "All of" market covers its whole country', async () => {
    const newYork = anEvent({ marketIds: [35] });
    const chicago = anEvent({ marketIds: [3] });
    const london = anEvent({ marketIds: [202], country: 'GB' });
    for (const e of [newYork, chicago, london]) await withDeal(e);

    expect(eventIds({ marketIds: [35] })).toEqual([newYork.id]);
    expect(eventIds({ marketIds: [35, 3] }).sort()).toEqual([chicago.id, newYork.id].sort());
    expect(eventIds({ marketIds: [51] }).sort()).toEqual([chicago.id, newYork.id].sort());
    expect(eventIds({ marketIds: [201], country: 'GB' })).toEqual([london.id]);
  });

  it('marketIds: a value outside the market table is invalid_argument', () => {
    expect(() => sut.search(criteria({ marketIds: [35, 56] }))).toThrow(
      expect.objectContaining({ kind: 'invalid_argument', message: expect.stringContaining('56') }),
    );
  });

  it('startRow and rows page through the ordered result; totalHits counts all', async () => {
    const events = Array.from({ length: 7 }, (_, i) =>
      anEvent({ startAt: new Date(Date.UTC(2030, 5, 1 + i)) }),
    );
    for (const e of events) await withDeal(e);

    const page = sut.search(criteria({ startRow: 2, rows: 3 }));

    expect(page.hits.map((h) => h.event.id)).toEqual(events.slice(2, 5).map((e) => e.id));
    expect(page.totalHits).toBe(7);
    expect(sut.search(criteria({ startRow: 7 })).hits).toEqual([]);
  });

  it.each([
    [{ rows: 501 }, /rows/],
    [{ rows: 0 }, /rows/],
    [{ startRow: -1 }, /startRow/],
    [{ exclusivities: [] }, /exclusivities/],
    [{ near: { latitude: 91, longitude: 0, radius: 10, unit: 'kilometers' as const } }, /latitude/],
    [{ near: { latitude: 0, longitude: 0, radius: 0, unit: 'kilometers' as const } }, /radius/],
    [{ venueId: -3 }, /venueId/],
    [{ timeRangeStart: new Date('2030-02-01'), timeRangeEnd: new Date('2030-01-01') }, /timeRange/],
  ])('refuses %o with invalid_argument', (bad, message) => {
    expect(() => sut.search(criteria(bad))).toThrow(
      expect.objectContaining({
        kind: 'invalid_argument',
        message: expect.stringMatching(message),
      }),
    );
  });

  it('rows accepts the maximum 500', async () => {
    const events = Array.from({ length: 501 }, () => anEvent());
    for (const e of events) await withDeal(e);
    const result = sut.search(criteria({ rows: 500 }));
    expect(result.hits).toHaveLength(500);
    expect(result.totalHits).toBe(501);
  });

  it('country: the default US leaves out other countries; an event of unknown country stays in', async () => {
    const us = anEvent({ country: 'US' });
    const gb = anEvent({ country: 'GB', marketIds: [202] });
    const unknown = anEvent({ country: undefined, marketIds: [] });
    for (const e of [us, gb, unknown]) await withDeal(e);

    expect(eventIds().sort()).toEqual([unknown.id, us.id].sort());
    expect(eventIds({ country: 'gb' }).sort()).toEqual([gb.id, unknown.id].sort());
  });

  it('city and state match case-insensitively on names and state codes', async () => {
    const nyc = anEvent();
    const austin = anEvent({ cities: ['austin'], states: ['tx', 'texas'] });
    for (const e of [nyc, austin]) await withDeal(e);

    expect(eventIds({ city: 'AUSTIN' })).toEqual([austin.id]);
    expect(eventIds({ state: 'NY' })).toEqual([nyc.id]);
    expect(eventIds({ state: 'Texas' })).toEqual([austin.id]);
    expect(eventIds({ city: 'Boston' })).toEqual([]);
  });

  it('latitude/longitude with radius in kilometers (the default unit)', async () => {
    const centre = { latitude: 40.7505, longitude: -73.9934 };
    const near = anEvent({ venue: { id: 'v1', name: 'Near', number: 1, ...northOf(centre, 8) } });
    const far = anEvent({ venue: { id: 'v2', name: 'Far', number: 2, ...northOf(centre, 12) } });
    const nowhere = anEvent({ venue: { id: 'v3', name: 'No coordinates', number: 3 } });
    for (const e of [near, far, nowhere]) await withDeal(e);

    const within10km = { ...centre, radius: 10, unit: 'kilometers' as const };
    expect(eventIds({ near: within10km })).toEqual([near.id]);
    expect(eventIds({ near: { ...within10km, radius: 13 } }).sort()).toEqual(
      [far.id, near.id].sort(),
    );
  });

  it('radiusUnit miles: 10 miles reaches 15 km but not 17 km', async () => {
    const centre = { latitude: 40.7505, longitude: -73.9934 };
    const at15km = anEvent({ venue: { id: 'v1', name: 'A', number: 1, ...northOf(centre, 15) } });
    const at17km = anEvent({ venue: { id: 'v2', name: 'B', number: 2, ...northOf(centre, 17) } });
    for (const e of [at15km, at17km]) await withDeal(e);

    expect(eventIds({ near: { ...centre, radius: 10, unit: 'miles' } })).toEqual([at15km.id]);
    expect(eventIds({ near: { ...centre, radius: 10, unit: 'kilometers' } })).toEqual([]);
  });

  it('majorGenreId, minorGenreId, venueId and attractionId match the public numeric ids', async () => {
    const rock = anEvent();
    const jazz = anEvent({
      majorGenres: [{ id: 'jazz', name: 'Jazz', number: publicIdOf('genre', 'jazz') }],
      minorGenres: [{ id: 'bebop', name: 'Bebop', number: publicIdOf('genre', 'bebop') }],
      venue: { id: 'bluenote', name: 'Blue Note', number: publicIdOf('venue', 'bluenote') },
      attractions: [{ id: 'trio', name: 'Trio', number: publicIdOf('attraction', 'trio') }],
    });
    for (const e of [rock, jazz]) await withDeal(e);

    expect(eventIds({ majorGenreId: publicIdOf('genre', 'jazz') })).toEqual([jazz.id]);
    expect(eventIds({ minorGenreId: publicIdOf('genre', 'bebop') })).toEqual([jazz.id]);
    expect(eventIds({ venueId: publicIdOf('venue', 'bluenote') })).toEqual([jazz.id]);
    expect(eventIds({ attractionId: publicIdOf('attraction', 'trio') })).toEqual([jazz.id]);
    expect(eventIds({ attractionId: publicIdOf('attraction', 'K8vZ9171') })).toEqual([rock.id]);
    expect(eventIds({ majorGenreId: publicIdOf('genre', 'bebop') })).toEqual([]);
  });

  it('timeRangeStart is inclusive and timeRangeEnd exclusive', async () => {
    const at = (iso: string) => anEvent({ startAt: new Date(iso) });
    const before = at('2030-06-30T23:59:59.999Z');
    const atStart = at('2030-07-01T00:00:00Z');
    const inside = at('2030-07-15T00:00:00Z');
    const atEnd = at('2030-08-01T00:00:00Z');
    const undated = anEvent({ startAt: undefined });
    for (const e of [before, atStart, inside, atEnd, undated]) await withDeal(e);

    const range = {
      timeRangeStart: new Date('2030-07-01T00:00:00Z'),
      timeRangeEnd: new Date('2030-08-01T00:00:00Z'),
    };
    expect(eventIds(range)).toEqual([atStart.id, inside.id]);
    expect(eventIds({ timeRangeStart: range.timeRangeStart })).toEqual([
      atStart.id,
      inside.id,
      atEnd.id,
    ]);
    expect(eventIds({ timeRangeEnd: range.timeRangeStart })).toEqual([before.id]);
  });

  it('the QA data set holds test events only, production holds the rest', async () => {
    const real = anEvent({ test: false });
    const qa = anEvent({ test: true });
    for (const e of [real, qa]) await withDeal(e);

    expect(eventIds()).toEqual([real.id]);
    expect(eventIds({ qa: true })).toEqual([qa.id]);
  });

  it('the deal id restricts to the events of that deal, with all their matching deals', async () => {
    const a = anEvent();
    const b = anEvent();
    const deal = await withDeal(a);
    await withDeal(a, { exclusivity: 'NONEXCLUSIVE' });
    await withDeal(b);

    const result = sut.search(criteria({ dealId: deal.id }));

    expect(result.hits.map((h) => h.event.id)).toEqual([a.id]);
    expect(result.hits[0]!.deals).toHaveLength(2);
    expect(sut.search(criteria({ dealId: 'unknown' })).totalHits).toBe(0);
  });

  it('hides inactive events and events outside their public visibility window', async () => {
    const inactive = anEvent({ active: false });
    const notYet = anEvent({ visibleFrom: new Date('2030-02-01T00:00:00Z') });
    const over = anEvent({ visibleUntil: new Date('2030-01-15T12:00:00Z') });
    const shown = anEvent({ visibleFrom: new Date('2030-01-01T00:00:00Z') });
    for (const e of [inactive, notYet, over, shown]) await withDeal(e);

    expect(eventIds()).toEqual([shown.id]);
  });
});
