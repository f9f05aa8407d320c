import { catalogV1 } from '@marquee/proto';
import type { RawOutgoingEvent } from '@marquee/platform/outbox';
import { describe, expect, it } from 'vitest';
import type { PublishedEventRepository } from '../src/app/ports.js';
import type { PublishedEvent } from '../src/domain/published-event.js';
import { newEventId } from '../src/adapters/event-ids.js';

export interface RepositoryUnderTest {
  sut: PublishedEventRepository;
  /** Relays what the writes recorded in the outbox and returns it, as the bus would receive it. */
  relay(): Promise<{ topic: string; event: RawOutgoingEvent }[]>;
}

export const aPublishedEvent = (overrides: Partial<PublishedEvent> = {}): PublishedEvent => ({
  id: newEventId(),
  version: 1,
  appId: 'app-1',
  publisherVersion: 3,
  body: {
    source: { id: 'acme', name: 'Acme' },
    names: { 'en-us': 'Spring Concert' },
    venue: { id: 'KovZpZAEdFtJ' },
    // Unknown properties FerretDB could not store as document keys: kept verbatim anyway.
    'x.meta': { $weird: [[1, 2]] },
  },
  createdAt: new Date('2026-01-02T03:04:05.000Z'),
  updatedAt: new Date('2026-01-02T03:04:05.000Z'),
  ...overrides,
});

const decode = (value: Uint8Array | null) =>
  value === null ? null : catalogV1.EventChanged.decode(value);

/**
 * One contract for every PublishedEventRepository implementation: the memory store (unit tier) and
 * the Mongo store on the real server (integration tier) must behave the same, outbox included.
 */
export function publishedEventRepositoryContract(
  name: string,
  setup: () => Promise<RepositoryUnderTest>,
): void {
  describe(`PublishedEventRepository (${name})`, () => {
    it('stores a new event at version 1 and reads back the body verbatim', async () => {
      const { sut } = await setup();
      const event = aPublishedEvent();

      const created = await sut.create(event);

      expect(created.version).toBe(1);
      expect(await sut.get(event.id)).toEqual({ ...event, version: 1 });
    });

    it('answers undefined for an unknown id', async () => {
      const { sut } = await setup();
      expect(await sut.get('nope00000000000')).toBeUndefined();
    });

    it('refuses a second event with the same id', async () => {
      const { sut } = await setup();
      const event = aPublishedEvent();
      await sut.create(event);
      await expect(sut.create(event)).rejects.toMatchObject({ kind: 'already_exists' });
    });

    it("finds an app's event by the publication key that created it, within the window", async () => {
      const { sut } = await setup();
      const keyed = aPublishedEvent({ publicationKey: 'pk-1' });
      await sut.create(keyed);
      await sut.create(aPublishedEvent());
      const before = new Date(keyed.createdAt.getTime() - 1);
      const after = new Date(keyed.createdAt.getTime() + 1);

      expect(await sut.findByPublicationKey('app-1', 'pk-1', before)).toEqual({
        ...keyed,
        version: 1,
      });
      expect(await sut.findByPublicationKey('app-2', 'pk-1', before)).toBeUndefined();
      expect(await sut.findByPublicationKey('app-1', 'pk-2', before)).toBeUndefined();
      expect(await sut.findByPublicationKey('app-1', 'pk-1', after)).toBeUndefined();
    });

    it('lets a publication key used before the window name a new event', async () => {
      const { sut } = await setup();
      const first = aPublishedEvent({ publicationKey: 'pk-again' });
      await sut.create(first);
      const later = new Date(first.createdAt.getTime() + 60_000);
      const second = aPublishedEvent({ publicationKey: 'pk-again', createdAt: later });
      await sut.create(second);

      expect((await sut.findByPublicationKey('app-1', 'pk-again', later))?.id).toBe(second.id);
      expect(await sut.get(first.id)).toBeDefined();
    });

    it("lists an app's live events newest first, ties by id, from a position", async () => {
      const { sut } = await setup();
      const at = (iso: string) => new Date(iso);
      const appId = `app-${newEventId()}`;
      const make = (id: string, createdAt: Date) =>
        aPublishedEvent({ id, appId, createdAt, updatedAt: createdAt });
      const t1 = at('2026-01-01T00:00:01.000Z');
      const t2 = at('2026-01-01T00:00:02.000Z');
      const events = [
        make('AAAAAAAAAAAAAA1', t1),
        make('AAAAAAAAAAAAAA2', t2),
        make('AAAAAAAAAAAAAA3', t2),
        make('AAAAAAAAAAAAAA4', t2),
        make('AAAAAAAAAAAAAA5', at('2026-01-01T00:00:03.000Z')),
      ];
      for (const event of events) await sut.create(event);
      await sut.create(aPublishedEvent({ appId: `other-${appId}` }));
      const removed = make('AAAAAAAAAAAAAA6', at('2026-01-01T00:00:04.000Z'));
      await sut.create(removed);
      await sut.remove({ ...removed, version: 1 });
      const ids = (list: { id: string }[]) => list.map((event) => event.id);

      expect(ids(await sut.listByApp(appId, { limit: 10 }))).toEqual([
        'AAAAAAAAAAAAAA5',
        'AAAAAAAAAAAAAA2',
        'AAAAAAAAAAAAAA3',
        'AAAAAAAAAAAAAA4',
        'AAAAAAAAAAAAAA1',
      ]);
      expect(ids(await sut.listByApp(appId, { limit: 2 }))).toEqual([
        'AAAAAAAAAAAAAA5',
        'AAAAAAAAAAAAAA2',
      ]);
      // From the middle of an instant: the rest of it, then older ones.
      expect(
        ids(
          await sut.listByApp(appId, {
            limit: 10,
            after: { createdAt: t2, id: 'AAAAAAAAAAAAAA2' },
          }),
        ),
      ).toEqual(['AAAAAAAAAAAAAA3', 'AAAAAAAAAAAAAA4', 'AAAAAAAAAAAAAA1']);
      expect(
        ids(
          await sut.listByApp(appId, { limit: 1, after: { createdAt: t2, id: 'AAAAAAAAAAAAAA4' } }),
        ),
      ).toEqual(['AAAAAAAAAAAAAA1']);
      expect(
        await sut.listByApp(appId, { limit: 5, after: { createdAt: t1, id: 'AAAAAAAAAAAAAA1' } }),
      ).toEqual([]);
      const [newest] = await sut.listByApp(appId, { limit: 1 });
      expect(newest).toEqual({ ...events[4], version: 1 });
    });

    it('records event-changed with the whole state, keyed by the event id', async () => {
      const { sut, relay } = await setup();
      const event = aPublishedEvent();
      await sut.create(event);

      const records = await relay();

      expect(records).toHaveLength(1);
      const [{ topic, event: record }] = records as [{ topic: string; event: RawOutgoingEvent }];
      expect(topic).toBe('event-changed');
      expect(record.key).toBe(event.id);
      expect(record.type).toBe('marquee.catalog.v1.EventChanged');
      const message = decode(record.value);
      expect(message?.event).toMatchObject({
        id: event.id,
        version: 1,
        publisherVersion: 3,
        source: { id: 'acme', name: 'Acme' },
        names: { values: { 'en-us': 'Spring Concert' } },
        location: { $case: 'venue', value: { ref: { $case: 'id', value: 'KovZpZAEdFtJ' } } },
        origin: { kind: { $case: 'published', value: { appId: 'app-1' } } },
      });
      expect(message?.changedAt).toEqual(event.updatedAt);
    });

    it('replaces at the expected version, bumps it and records the new state', async () => {
      const { sut, relay } = await setup();
      const event = aPublishedEvent();
      await sut.create(event);
      await relay();
      const next = {
        ...event,
        publisherVersion: 4,
        body: { ...event.body, names: { 'en-us': 'Summer Concert' } },
        updatedAt: new Date('2026-02-01T00:00:00.000Z'),
      };

      const replaced = await sut.replace(next, 1);

      expect(replaced.version).toBe(2);
      expect(await sut.get(event.id)).toMatchObject({
        version: 2,
        publisherVersion: 4,
        body: next.body,
      });
      const [record] = await relay();
      expect(decode(record!.event.value)?.event).toMatchObject({
        version: 2,
        publisherVersion: 4,
        names: { values: { 'en-us': 'Summer Concert' } },
      });
    });

    it('rejects a replace at a stale version and records nothing', async () => {
      const { sut, relay } = await setup();
      const event = aPublishedEvent();
      await sut.create(event);
      await sut.replace({ ...event, publisherVersion: 4 }, 1);
      await relay();

      await expect(sut.replace({ ...event, publisherVersion: 5 }, 1)).rejects.toMatchObject({
        kind: 'aborted',
      });
      expect(await relay()).toEqual([]);
      expect((await sut.get(event.id))?.publisherVersion).toBe(4);
    });

    it('removes the event and records a tombstone', async () => {
      const { sut, relay } = await setup();
      const event = aPublishedEvent();
      await sut.create(event);
      await relay();

      await sut.remove({ ...event, version: 1 });

      expect(await sut.get(event.id)).toBeUndefined();
      const records = await relay();
      expect(records.map((r) => [r.topic, r.event.key, r.event.value])).toEqual([
        ['event-changed', event.id, null],
      ]);
    });

    it('refuses to remove a version that moved on', async () => {
      const { sut } = await setup();
      const event = aPublishedEvent();
      await sut.create(event);
      await sut.replace({ ...event, publisherVersion: 4 }, 1);

      await expect(sut.remove({ ...event, version: 1 })).rejects.toMatchObject({ kind: 'aborted' });
      expect(await sut.get(event.id)).toBeDefined();
    });

    it('relays create, update and delete of one event in order', async () => {
      const { sut, relay } = await setup();
      const event = aPublishedEvent();
      await sut.create(event);
      await sut.replace({ ...event, publisherVersion: 4 }, 1);
      await sut.remove({ ...event, version: 2 });

      const records = await relay();

      expect(records.map((r) => decode(r.event.value)?.event?.version ?? null)).toEqual([
        1,
        2,
        null,
      ]);
    });
  });
}
