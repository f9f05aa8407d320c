import { dealChangedTopic } from '@marquee/proto/topics';
import { describe, expect, it } from 'vitest';
import type { Deal } from '../src/domain/deal.js';
import { deletedEvent } from '../src/domain/deal-event.js';
import { anEvent, type TestStorage } from './builders.js';

const t0 = new Date('2030-01-01T10:00:00.000Z');
let n = 0;
const aDeal = (overrides: Partial<Omit<Deal, 'version'>> = {}): Omit<Deal, 'version'> => ({
  id: `D${Date.now().toString(36)}${++n}`,
  eventId: 'E1',
  name: 'Two for one',
  description: 'Buy one, get one',
  offerCode: 'TWO',
  exclusivity: 'EXCLUSIVE',
  state: 'active',
  createdAt: t0,
  updatedAt: t0,
  ...overrides,
});

/**
 * One contract for the deals storage, run on the memory stores (unit tier) and on Mongo collections
 * of the real Mongo-wire server (integration tier), so the embedded default cannot drift.
 */
export function repositoriesContract(name: string, makeStorage: () => Promise<TestStorage>): void {
  describe(`deals storage contract (${name})`, () => {
    it('creates a deal at version 1 and reads it back with every field', async () => {
      const sut = await makeStorage();
      const draft = aDeal();

      const created = await sut.deals.create(draft);

      expect(created).toEqual({ ...draft, version: 1 });
      expect(await sut.deals.get(draft.id)).toEqual({ ...draft, version: 1 });
      expect(await sut.deals.get('missing')).toBeUndefined();
    });

    it('keeps a deal without an offer code without one', async () => {
      const sut = await makeStorage();
      const { offerCode: _offerCode, ...draft } = aDeal();
      await sut.deals.create(draft);
      const read = await sut.deals.get(draft.id);
      expect(read).toBeDefined();
      expect('offerCode' in read!).toBe(false);
    });

    it('refuses a second deal with the same id (already_exists)', async () => {
      const sut = await makeStorage();
      const draft = aDeal();
      await sut.deals.create(draft);
      await expect(sut.deals.create(draft)).rejects.toMatchObject({ kind: 'already_exists' });
    });

    it('updates compare-and-set on the version (aborted when stale)', async () => {
      const sut = await makeStorage();
      const draft = aDeal();
      await sut.deals.create(draft);

      const updated = await sut.deals.update(draft.id, 1, { ...draft, state: 'ended' });

      expect(updated).toMatchObject({ version: 2, state: 'ended' });
      await expect(sut.deals.update(draft.id, 1, draft)).rejects.toMatchObject({ kind: 'aborted' });
      expect(await sut.deals.get(draft.id)).toMatchObject({ version: 2, state: 'ended' });
    });

    it('records one deal-changed per write, keyed by the event id, carrying the written state', async () => {
      const sut = await makeStorage();
      const draft = aDeal({ eventId: 'E-outbox' });
      await sut.deals.create(draft);
      await sut.deals.update(draft.id, 1, { ...draft, name: 'Renamed' });

      const pending = (await sut.outboxSources[0]!.pendingOutbox(100)).find(
        (p) => p.docId === draft.id,
      );

      expect(pending!.events.map((e) => [e.topic, e.key, e.type])).toEqual([
        ['deal-changed', 'E-outbox', 'marquee.deals.v1.DealChanged'],
        ['deal-changed', 'E-outbox', 'marquee.deals.v1.DealChanged'],
      ]);
      const messages = pending!.events.map((e) => dealChangedTopic.codec.decode(e.value!));
      expect(messages.map((m) => [m.deal!.name, m.deal!.version])).toEqual([
        ['Two for one', 1],
        ['Renamed', 2],
      ]);
    });

    it('lists the deals of one event', async () => {
      const sut = await makeStorage();
      const a = aDeal({ eventId: 'E-list-1' });
      const b = aDeal({ eventId: 'E-list-1', state: 'ended' });
      const other = aDeal({ eventId: 'E-list-2' });
      for (const d of [a, b, other]) await sut.deals.create(d);
      const ids = (await sut.deals.listByEvent('E-list-1')).map((d) => d.id).sort();
      expect(ids).toEqual([a.id, b.id].sort());
      expect(await sut.deals.listByEvent('E-none')).toEqual([]);
    });

    it('lists every deal, active and ended', async () => {
      const sut = await makeStorage();
      const a = aDeal();
      const b = aDeal({ state: 'ended' });
      await sut.deals.create(a);
      await sut.deals.create(b);
      const ids = (await sut.deals.list()).map((d) => d.id);
      expect(ids).toEqual(expect.arrayContaining([a.id, b.id]));
    });

    it('stores an event projection with every field and reads it back equal', async () => {
      const sut = await makeStorage();
      const event = anEvent({ visibleFrom: t0, visibleUntil: new Date('2031-01-01T00:00:00Z') });

      expect(await sut.events.put(event)).toBe(true);

      expect(await sut.events.get(event.id)).toEqual(event);
      expect(await sut.events.get('missing')).toBeUndefined();
    });

    it('applies only a greater event version (idempotent, order-safe)', async () => {
      const sut = await makeStorage();
      const event = anEvent({ eventVersion: 3, name: 'three' });
      await sut.events.put(event);

      expect(await sut.events.put({ ...event, eventVersion: 3, name: 'again' })).toBe(false);
      expect(await sut.events.put({ ...event, eventVersion: 2, name: 'two' })).toBe(false);
      expect((await sut.events.get(event.id))!.name).toBe('three');
      expect(await sut.events.put({ ...event, eventVersion: 4, name: 'four' })).toBe(true);
      expect((await sut.events.get(event.id))!.name).toBe('four');
    });

    it('replaces the venue only at the held event version (setVenue)', async () => {
      const sut = await makeStorage();
      const pending = { id: 'ZV1', name: 'Hall', number: 7, unresolved: true };
      const event = anEvent({ eventVersion: 2, venue: pending });
      await sut.events.put(event);
      const resolved = { id: 'ZV1', name: 'Hall', number: 7, latitude: 1.5, longitude: -2.25 };

      expect(await sut.events.setVenue(event.id, 1, resolved)).toBe(false);
      expect((await sut.events.get(event.id))!.venue).toEqual(pending);
      expect(await sut.events.setVenue(event.id, 2, resolved)).toBe(true);
      expect(await sut.events.get(event.id)).toEqual({ ...event, venue: resolved });
      expect(await sut.events.setVenue('missing', 1, resolved)).toBe(false);
    });

    it('keeps a deletion at its version and lists only live events', async () => {
      const sut = await makeStorage();
      const live = anEvent();
      const gone = anEvent({ eventVersion: 2 });
      await sut.events.put(live);
      await sut.events.put(gone);

      expect(await sut.events.put(deletedEvent(gone.id, 3))).toBe(true);
      expect(await sut.events.put({ ...gone, eventVersion: 3 })).toBe(false);

      expect((await sut.events.get(gone.id))!.deleted).toBe(true);
      const listed = (await sut.events.list()).map((e) => e.id);
      expect(listed).toContain(live.id);
      expect(listed).not.toContain(gone.id);
    });
  });
}
