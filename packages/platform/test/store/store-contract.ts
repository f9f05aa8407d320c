/**
 * The one contract of `VersionedStore` (+ its outbox source side), run against every adapter:
 * memory-store.unit.test.ts and mongo-store.int.test.ts. If an adapter passes this, a service can
 * swap it for the other without noticing (docs/run-modes.md).
 */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { OutboxEvent, OutboxSource } from '../../src/outbox/types.js';
import { deleteAtVersion } from '../../src/store/errors.js';
import type {
  CollectionOptions,
  StoreIndex,
  Versioned,
  VersionedStore,
} from '../../src/store/types.js';

export interface Show extends Versioned {
  title: string;
  venueId: string;
  startsAt: Date;
  priceCents: number;
  tags: string[];
  /** Unique when present (see the unique index test). */
  code?: string | null;
  poster?: Uint8Array | null;
  details?: { promoter: string; ageLimit: number | null };
  counter?: number;
}

export type ContractStore = VersionedStore<Show> & OutboxSource;

/** Builds an empty store on a fresh collection; called once per test. */
export type StoreFactory = (options: {
  indexes?: readonly StoreIndex<Show>[];
  pack?: CollectionOptions<Show>['pack'];
}) => Promise<ContractStore>;

const UNIQUE_CODE: StoreIndex<Show> = { fields: { code: 1 }, unique: true, name: 'code_unique' };

let seq = 0;
export function aShow(overrides: Partial<Show> = {}): Omit<Show, 'version'> {
  seq += 1;
  return {
    id: `show-${seq}-${randomUUID().slice(0, 8)}`,
    title: `Show ${seq}`,
    venueId: 'venue-1',
    startsAt: new Date('2030-05-01T19:30:00.000Z'),
    priceCents: 5_000,
    tags: ['music'],
    code: `CODE-${seq}`,
    ...overrides,
  };
}

export function anEvent(key: string, overrides: Partial<OutboxEvent> = {}): OutboxEvent {
  return {
    id: randomUUID(),
    topic: 'show-changed',
    key,
    type: 'marquee.test.v1.ShowChanged',
    value: new Uint8Array([0x0a, 0x03, 0x61, 0x62, 0x63]),
    time: new Date('2030-01-01T00:00:00.123Z'),
    ...overrides,
  };
}

async function rejectionKind(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { kind?: string }).kind ?? `no kind: ${String(error)}`;
  }
  return 'resolved';
}

const eventIds = (events: readonly { id: string }[]): string[] => events.map((event) => event.id);

export function storeContract(adapter: string, factory: StoreFactory): void {
  describe(`VersionedStore contract (${adapter})`, () => {
    let sut: ContractStore;

    beforeEach(async () => {
      sut = await factory({ indexes: [UNIQUE_CODE, { fields: { venueId: 1, startsAt: 1 } }] });
    });

    const pendingFor = async (docId: string): Promise<OutboxEvent[] | undefined> =>
      (await sut.pendingOutbox(1_000)).find((pending) => pending.docId === docId)?.events as
        OutboxEvent[] | undefined;

    describe('packed collection', () => {
      // `venueId` kept by name, `code` and `startsAt` by their indexes; the rest packed.
      let packed: ContractStore;
      beforeEach(async () => {
        packed = await factory({
          indexes: [UNIQUE_CODE, { fields: { startsAt: 1 } }],
          pack: { keep: ['venueId'] },
        });
      });

      it('reads back every kind of value, kept or packed, through every read and write', async () => {
        const draft = aShow({
          code: 'PK1',
          poster: new Uint8Array([0, 7, 255]),
          details: { promoter: 'Live Co', ageLimit: null },
          tags: ['music', 'jazz'],
          priceCents: 2 ** 40 + 1,
          counter: 0.5,
        });
        const expected = { ...draft, poster: Buffer.from([0, 7, 255]), version: 1 };
        expect(await packed.insert(draft)).toEqual(expected);
        expect(await packed.get(draft.id)).toEqual(expected);
        expect((await packed.get(draft.id))?.poster).toBeInstanceOf(Uint8Array);

        const updated = await packed.update(draft.id, 1, (show) => ({
          ...show,
          title: 'Renamed',
          details: undefined,
          tags: [],
        }));
        const { details: _dropped, ...rest } = expected;
        const next = { ...rest, title: 'Renamed', tags: [], version: 2 };
        expect(updated).toEqual(next);
        expect(await packed.get(draft.id)).toEqual(next);
        expect(await packed.modify(draft.id, (show) => ({ ...show, counter: 3 }))).toEqual({
          ...next,
          counter: 3,
          version: 3,
        });
        expect(await packed.find({ venueId: draft.venueId, code: 'PK1' })).toEqual([
          { ...next, counter: 3, version: 3 },
        ]);
      });

      it('filters and sorts on kept fields, and refuses packed ones', async () => {
        const early = aShow({ venueId: 'v-pack', startsAt: new Date('2030-01-01T00:00:00Z') });
        const late = aShow({ venueId: 'v-pack', startsAt: new Date('2031-01-01T00:00:00Z') });
        await packed.insert(late);
        await packed.insert(early);
        const found = await packed.find(
          { venueId: 'v-pack', startsAt: { $gte: new Date('2029-01-01T00:00:00Z') } },
          { sort: { startsAt: 1 } },
        );
        expect(found.map((show) => show.id)).toEqual([early.id, late.id]);
        expect(await packed.count({ venueId: 'v-pack' })).toBe(2);

        expect(await rejectionKind(packed.find({ title: early.title }))).toBe('invalid_argument');
        expect(await rejectionKind(packed.find({}, { sort: { priceCents: 1 } }))).toBe(
          'invalid_argument',
        );
        expect(await rejectionKind(packed.count({ tags: 'music' }))).toBe('invalid_argument');
      });

      it('keeps unique indexes and the outbox working', async () => {
        const first = aShow({ code: 'PK-U' });
        const event = anEvent(first.id);
        await packed.insert(first, { events: [event] });
        expect(await rejectionKind(packed.insert(aShow({ code: 'PK-U' })))).toBe('already_exists');
        const pending = await packed.pendingOutbox(1_000);
        expect(pending.find((p) => p.docId === first.id)?.events.map((e) => e.id)).toEqual([
          event.id,
        ]);
      });
    });

    describe('crud', () => {
      it('inserts at version 1 and reads back every kind of value unchanged', async () => {
        const draft = aShow({
          code: 'ABC',
          poster: new Uint8Array([1, 2, 255]),
          details: { promoter: 'Live Co', ageLimit: null },
          tags: ['music', 'jazz'],
        });

        const inserted = await sut.insert(draft);
        const read = await sut.get(draft.id);

        const expected = { ...draft, poster: Buffer.from([1, 2, 255]), version: 1 };
        expect(inserted).toEqual(expected);
        expect(read).toEqual(expected);
        expect(read?.startsAt).toBeInstanceOf(Date);
        expect(read?.poster).toBeInstanceOf(Uint8Array);
      });

      it('owns the version: a version passed to insert is ignored', async () => {
        const inserted = await sut.insert({ ...aShow(), version: 41 });
        expect(inserted.version).toBe(1);
      });

      it('answers undefined for an unknown id', async () => {
        expect(await sut.get('nope')).toBeUndefined();
      });

      it('drops undefined properties instead of storing them', async () => {
        const draft = { ...aShow(), code: undefined };
        await sut.insert(draft);
        const read = await sut.get(draft.id);
        expect(read).toBeDefined();
        expect(Object.keys(read as object)).not.toContain('code');
      });

      it('returns copies: changing a returned document does not change the stored one', async () => {
        const draft = aShow();
        const inserted = await sut.insert(draft);
        inserted.tags.push('mutated');
        const read = (await sut.get(draft.id)) as Show;
        read.title = 'mutated';
        expect(await sut.get(draft.id)).toEqual({ ...draft, version: 1 });
      });

      it('replaces the document on update with a next document, bumping the version', async () => {
        const draft = aShow({ code: 'X1', details: { promoter: 'A', ageLimit: 18 } });
        await sut.insert(draft);
        const { code: _dropped, ...withoutCode } = draft;

        const updated = await sut.update(draft.id, 1, { ...withoutCode, title: 'Renamed' });

        expect(updated).toEqual({ ...withoutCode, title: 'Renamed', version: 2 });
        expect(await sut.get(draft.id)).toEqual(updated);
      });

      it('applies a mutation to the current document', async () => {
        const draft = aShow({ priceCents: 1_000 });
        await sut.insert(draft);
        const seen: number[] = [];

        const updated = await sut.update(draft.id, 1, (current) => {
          seen.push(current.version);
          current.priceCents += 250;
          return current;
        });

        expect(seen).toEqual([1]);
        expect(updated.priceCents).toBe(1_250);
        expect(updated.version).toBe(2);
        expect((await sut.get(draft.id))?.priceCents).toBe(1_250);
      });

      it('modifies in one call: reads, asks for the next state, writes it at the version read', async () => {
        const draft = aShow({ priceCents: 1_000 });
        await sut.insert(draft);
        const seen: number[] = [];

        const modified = await sut.modify(
          draft.id,
          (current) => {
            seen.push(current.version);
            return { ...current, priceCents: current.priceCents + 250 };
          },
          {
            events: (before, after) => [
              anEvent(draft.id, { type: `price.${before.priceCents}.${after.priceCents}` }),
            ],
          },
        );

        expect(seen).toEqual([1]);
        expect(modified).toMatchObject({ id: draft.id, version: 2, priceCents: 1_250 });
        expect(await sut.get(draft.id)).toEqual(modified);
        const [pending] = await sut.pendingOutbox(10);
        expect(pending?.events.map((event) => event.type)).toEqual(['price.1000.1250']);
      });

      it('writes nothing when the modification declines, and answers undefined for a missing id', async () => {
        const draft = aShow();
        await sut.insert(draft);

        const unchanged = await sut.modify(draft.id, () => undefined, {
          events: () => [anEvent(draft.id)],
        });

        expect(unchanged).toMatchObject({ id: draft.id, version: 1, title: draft.title });
        expect((await sut.get(draft.id))?.version).toBe(1);
        expect(await sut.pendingOutbox(10)).toEqual([]);
        expect(await sut.modify('no-such-show', (current) => current)).toBeUndefined();
      });

      it('refuses a modification that changes the id, storing nothing', async () => {
        const draft = aShow();
        await sut.insert(draft);

        await expect(
          sut.modify(draft.id, (current) => ({ ...current, id: 'another' })),
        ).rejects.toMatchObject({ kind: 'invalid_argument' });
        expect((await sut.get(draft.id))?.version).toBe(1);
      });

      it('rejects an update at a stale version with kind aborted and changes nothing', async () => {
        const draft = aShow();
        await sut.insert(draft);
        await sut.update(draft.id, 1, { ...draft, title: 'v2' });

        expect(await rejectionKind(sut.update(draft.id, 1, { ...draft, title: 'stale' }))).toBe(
          'aborted',
        );
        expect(
          await rejectionKind(sut.update(draft.id, 1, (c) => ({ ...c, title: 'stale' }))),
        ).toBe('aborted');
        expect(await sut.get(draft.id)).toMatchObject({ title: 'v2', version: 2 });
      });

      it('rejects an update of a missing document with kind not_found', async () => {
        expect(await rejectionKind(sut.update('missing', 1, { ...aShow(), id: 'missing' }))).toBe(
          'not_found',
        );
        expect(await rejectionKind(sut.update('missing', 1, (c) => c))).toBe('not_found');
      });

      it('refuses to change the id on update', async () => {
        const draft = aShow();
        await sut.insert(draft);
        expect(await rejectionKind(sut.update(draft.id, 1, { ...draft, id: 'other' }))).toBe(
          'invalid_argument',
        );
        expect(await sut.get('other')).toBeUndefined();
        expect((await sut.get(draft.id))?.version).toBe(1);
      });

      it('rejects a duplicate id with kind already_exists and keeps the original', async () => {
        const draft = aShow({ title: 'original' });
        await sut.insert(draft);

        expect(await rejectionKind(sut.insert({ ...draft, title: 'impostor' }))).toBe(
          'already_exists',
        );
        expect(await sut.get(draft.id)).toMatchObject({ title: 'original', version: 1 });
      });

      it('enforces unique indexes on insert and on update', async () => {
        const first = aShow({ code: 'SAME' });
        const second = aShow({ code: 'OTHER' });
        await sut.insert(first);
        await sut.insert(second);

        expect(await rejectionKind(sut.insert(aShow({ code: 'SAME' })))).toBe('already_exists');
        expect(await rejectionKind(sut.update(second.id, 1, { ...second, code: 'SAME' }))).toBe(
          'already_exists',
        );
        expect((await sut.get(second.id))?.code).toBe('OTHER');
        // Freed once its holder moves away from it.
        await sut.update(first.id, 1, { ...first, code: 'MOVED' });
        await expect(sut.update(second.id, 1, { ...second, code: 'SAME' })).resolves.toMatchObject({
          version: 2,
        });
      });

      it('answers each of many concurrent inserts its own outcome', async () => {
        // Concurrent inserts may share one command (the Mongo adapter groups them): a clash of
        // one, on its id or on a unique index, must fail that one alone.
        const taken = aShow({ code: 'TAKEN' });
        await sut.insert(taken);
        const fresh = Array.from({ length: 30 }, (_, index) => aShow({ code: `FRESH-${index}` }));
        const clashes = [
          { ...taken, title: 'same id' },
          aShow({ code: 'TAKEN' }),
          aShow({ code: 'FRESH-3' }),
        ];
        const kinds = await Promise.all(
          [...fresh.slice(0, 15), ...clashes, ...fresh.slice(15)].map((draft) =>
            rejectionKind(sut.insert(draft)),
          ),
        );

        expect(kinds.filter((kind) => kind !== 'resolved')).toEqual(
          clashes.map(() => 'already_exists'),
        );
        for (const draft of fresh) expect(await sut.get(draft.id)).toMatchObject({ version: 1 });
        expect(await sut.get(clashes[1]!.id)).toBeUndefined();
        expect(await sut.get(clashes[2]!.id)).toBeUndefined();
        expect(await sut.get(taken.id)).toMatchObject({ title: taken.title, version: 1 });
      });

      it('refuses values the Mongo-wire server cannot store, storing nothing', async () => {
        const dotted = { ...aShow(), details: { 'a.b': 1 } } as unknown as Show;
        const dollar = { ...aShow(), details: { $where: 1 } } as unknown as Show;
        const nested = { ...aShow(), tags: [['a']] } as unknown as Show;
        const map = { ...aShow(), details: new Map() } as unknown as Show;
        for (const bad of [dotted, dollar, nested, map]) {
          expect(await rejectionKind(sut.insert(bad))).toBe('invalid_argument');
          expect(await sut.get(bad.id)).toBeUndefined();
        }
      });

      it('deletes, then answers false for a second delete', async () => {
        const draft = aShow();
        await sut.insert(draft);

        expect(await sut.delete(draft.id)).toBe(true);
        expect(await sut.get(draft.id)).toBeUndefined();
        expect(await sut.find({ id: draft.id })).toEqual([]);
        expect(await sut.delete(draft.id)).toBe(false);
        // The id is free again.
        await expect(sut.insert(draft)).resolves.toMatchObject({ version: 1 });
      });

      it('deletes at an expected version only', async () => {
        const draft = aShow();
        await sut.insert(draft);
        await sut.update(draft.id, 1, draft);

        expect(await rejectionKind(sut.delete(draft.id, 1))).toBe('aborted');
        expect(await sut.get(draft.id)).toBeDefined();
        expect(await sut.delete(draft.id, 2)).toBe(true);
        expect(await sut.get(draft.id)).toBeUndefined();
      });

      it('deleteAtVersion answers false, not a rejection, for a version that moved on', async () => {
        const draft = aShow();
        await sut.insert(draft);
        await sut.update(draft.id, 1, draft);

        expect(await deleteAtVersion(sut, draft.id, 1)).toBe(false);
        expect(await sut.get(draft.id)).toBeDefined();
        expect(await deleteAtVersion(sut, draft.id, 2)).toBe(true);
        expect(await sut.get(draft.id)).toBeUndefined();
        expect(await deleteAtVersion(sut, draft.id, 2)).toBe(false);
      });
    });

    describe('concurrency', () => {
      it('lets exactly one of N parallel updates at the same version win', async () => {
        const draft = aShow();
        await sut.insert(draft);
        const n = 20;

        const results = await Promise.allSettled(
          Array.from({ length: n }, (_, i) =>
            sut.update(draft.id, 1, { ...draft, title: `writer ${i}` }),
          ),
        );

        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost.map((r) => (r.reason as { kind?: string }).kind)).toEqual(
          Array(n - 1).fill('aborted'),
        );
        const stored = (await sut.get(draft.id)) as Show;
        expect(stored.version).toBe(2);
        expect(stored.title).toBe((won[0] as PromiseFulfilledResult<Show>).value.title);
      });

      it('loses no modification when N writers modify the same document at once', async () => {
        const draft = aShow({ counter: 0 });
        await sut.insert(draft);
        const writers = 8;
        const incrementsEach = 3;

        await Promise.all(
          Array.from({ length: writers }, async () => {
            for (let done = 0; done < incrementsEach; done += 1)
              await sut.modify(draft.id, (c) => ({ ...c, counter: (c.counter ?? 0) + 1 }));
          }),
        );

        const stored = (await sut.get(draft.id)) as Show;
        expect(stored.counter).toBe(writers * incrementsEach);
        expect(stored.version).toBe(writers * incrementsEach + 1);
      });

      it('loses no update when N writers read-modify-write with retries', async () => {
        const draft = aShow({ counter: 0 });
        await sut.insert(draft);
        const writers = 8;
        const incrementsEach = 3;
        let successes = 0;
        let conflicts = 0;

        await Promise.all(
          Array.from({ length: writers }, async () => {
            for (let done = 0; done < incrementsEach;) {
              const current = (await sut.get(draft.id)) as Show;
              try {
                await sut.update(draft.id, current.version, (c) => ({
                  ...c,
                  counter: (c.counter ?? 0) + 1,
                }));
                successes += 1;
                done += 1;
              } catch (error) {
                if ((error as { kind?: string }).kind !== 'aborted') throw error;
                conflicts += 1;
              }
            }
          }),
        );

        const stored = (await sut.get(draft.id)) as Show;
        expect(successes).toBe(writers * incrementsEach);
        expect(stored.counter).toBe(successes);
        expect(stored.version).toBe(successes + 1);
        // Not an assertion about timing: with 8 writers at least one collision is all but certain,
        // and if there were none the test above still proves no update was lost.
        expect(conflicts).toBeGreaterThanOrEqual(0);
      });
    });

    describe('outbox', () => {
      it('records events in the same write as the insert, in order, unchanged', async () => {
        const draft = aShow();
        const created = anEvent(draft.id, {
          traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
          correlationId: 'corr-1',
        });
        const tombstoneLike = anEvent(draft.id, { topic: 'other-topic', value: null });

        await sut.insert(draft, { events: [created, tombstoneLike] });

        const pending = await pendingFor(draft.id);
        expect(pending).toEqual([
          { ...created, value: Buffer.from(created.value as Uint8Array) },
          { ...tombstoneLike, value: null },
        ]);
      });

      it('appends the events of later writes after the ones still pending', async () => {
        const draft = aShow();
        const first = anEvent(draft.id);
        const second = anEvent(draft.id);
        const third = anEvent(draft.id);
        await sut.insert(draft, { events: [first] });
        await sut.update(draft.id, 1, draft, { events: [second] });
        await sut.update(draft.id, 2, (c) => c, { events: [third] });

        expect(eventIds((await pendingFor(draft.id)) ?? [])).toEqual([
          first.id,
          second.id,
          third.id,
        ]);
      });

      it('records no event when the write fails', async () => {
        const draft = aShow({ code: 'TAKEN' });
        await sut.insert(draft);

        await rejectionKind(sut.insert(draft, { events: [anEvent(draft.id)] }));
        await rejectionKind(sut.update(draft.id, 7, draft, { events: [anEvent(draft.id)] }));
        await rejectionKind(sut.delete(draft.id, 7, { events: [anEvent(draft.id)] }));
        await rejectionKind(sut.insert(aShow({ code: 'TAKEN' }), { events: [anEvent('x')] }));

        expect(await sut.pendingOutbox(100)).toEqual([]);
      });

      it('keeps a plain write without events out of the pending list', async () => {
        const draft = aShow();
        await sut.insert(draft);
        await sut.update(draft.id, 1, draft);
        expect(await sut.pendingOutbox(100)).toEqual([]);
      });

      it('acks by event id, keeping events written after the relay read the document', async () => {
        const draft = aShow();
        const first = anEvent(draft.id);
        const second = anEvent(draft.id);
        await sut.insert(draft, { events: [first] });
        const read = await pendingFor(draft.id);
        await sut.update(draft.id, 1, draft, { events: [second] }); // lands between read and ack

        await sut.ackOutbox(draft.id, eventIds(read ?? []));

        expect(eventIds((await pendingFor(draft.id)) ?? [])).toEqual([second.id]);
        await sut.ackOutbox(draft.id, [second.id]);
        expect(await sut.pendingOutbox(100)).toEqual([]);
        expect(await sut.get(draft.id)).toMatchObject({ version: 2 });
      });

      it('lists pending documents oldest first, up to the limit', async () => {
        const drafts = [aShow(), aShow(), aShow()];
        for (const draft of drafts) {
          await sut.insert(draft, { events: [anEvent(draft.id)] });
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        expect((await sut.pendingOutbox(2)).map((p) => p.docId)).toEqual([
          drafts[0]?.id,
          drafts[1]?.id,
        ]);
      });

      it('keeps a deleted record as an invisible tombstone until its events are acked, then purges it', async () => {
        const draft = aShow({ code: 'GONE' });
        const created = anEvent(draft.id);
        const deleted = anEvent(draft.id, { value: null });
        await sut.insert(draft, { events: [created] });
        await sut.ackOutbox(draft.id, [created.id]);

        expect(await sut.delete(draft.id, 1, { events: [deleted] })).toBe(true);

        expect(await sut.get(draft.id)).toBeUndefined();
        expect(await sut.find({ venueId: draft.venueId })).toEqual([]);
        expect(await sut.count({ id: draft.id })).toBe(0);
        expect(await sut.delete(draft.id)).toBe(false);
        expect(eventIds((await pendingFor(draft.id)) ?? [])).toEqual([deleted.id]);

        await sut.ackOutbox(draft.id, [deleted.id]);

        expect(await sut.pendingOutbox(100)).toEqual([]);
        // Purged: the id and its unique code are free, and it starts again at version 1.
        await expect(sut.insert(draft)).resolves.toMatchObject({ version: 1 });
      });

      it('still relays the events of a document deleted before they were published', async () => {
        const draft = aShow();
        const created = anEvent(draft.id);
        await sut.insert(draft, { events: [created] });

        expect(await sut.delete(draft.id)).toBe(true);

        expect(await sut.get(draft.id)).toBeUndefined();
        expect(eventIds((await pendingFor(draft.id)) ?? [])).toEqual([created.id]);
        await sut.ackOutbox(draft.id, [created.id]);
        expect(await sut.pendingOutbox(100)).toEqual([]);
      });

      it('re-creates over a pending tombstone with the deletion events first and the version continuing', async () => {
        const draft = aShow();
        const created = anEvent(draft.id);
        const deleted = anEvent(draft.id, { value: null });
        const recreated = anEvent(draft.id);
        await sut.insert(draft, { events: [created] });
        await sut.delete(draft.id, 1, { events: [deleted] });

        const again = await sut.insert({ ...draft, title: 'again' }, { events: [recreated] });

        expect(again).toMatchObject({ title: 'again', version: 3 });
        expect(await sut.get(draft.id)).toMatchObject({ title: 'again', version: 3 });
        expect(eventIds((await pendingFor(draft.id)) ?? [])).toEqual([
          created.id,
          deleted.id,
          recreated.id,
        ]);
        await sut.ackOutbox(draft.id, [created.id, deleted.id, recreated.id]);
        // Live again, so acking does not purge it.
        expect(await sut.get(draft.id)).toMatchObject({ version: 3 });
      });

      it('hides a deferred document until its time, and a new write makes it due again', async () => {
        const draft = aShow();
        await sut.insert(draft, { events: [anEvent(draft.id)] });

        await sut.deferOutbox(draft.id, new Date(Date.now() + 60_000));
        expect(await pendingFor(draft.id)).toBeUndefined();

        await sut.update(draft.id, 1, draft, { events: [anEvent(draft.id)] });
        expect(await pendingFor(draft.id)).toHaveLength(2);
      });

      it('tells listeners about writes that carry events, and only those', async () => {
        let calls = 0;
        const unsubscribe = sut.onOutboxWrite(() => {
          calls += 1;
        });
        const draft = aShow();
        await sut.insert(draft);
        expect(calls).toBe(0);
        await sut.update(draft.id, 1, draft, { events: [anEvent(draft.id)] });
        expect(calls).toBe(1);
        unsubscribe();
        await sut.update(draft.id, 2, draft, { events: [anEvent(draft.id)] });
        expect(calls).toBe(1);
      });

      it('grants the relay lease to one owner at a time', async () => {
        expect(await sut.acquireOutboxLease('relay-a', 60_000)).toBe(true);
        expect(await sut.acquireOutboxLease('relay-b', 60_000)).toBe(false);
        expect(await sut.acquireOutboxLease('relay-a', 60_000)).toBe(true); // renewal

        await sut.releaseOutboxLease('relay-b'); // not the holder: no effect
        expect(await sut.acquireOutboxLease('relay-b', 60_000)).toBe(false);

        await sut.releaseOutboxLease('relay-a');
        // The clock stands still until moved: a slow round trip must not let the short lease lapse early.
        vi.useFakeTimers({ toFake: ['Date'] });
        try {
          expect(await sut.acquireOutboxLease('relay-b', 150)).toBe(true);
          expect(await sut.acquireOutboxLease('relay-a', 60_000)).toBe(false);
          vi.advanceTimersByTime(149);
          expect(await sut.acquireOutboxLease('relay-a', 60_000)).toBe(false);
          vi.advanceTimersByTime(101); // relay-b "crashed": its lease lapses
          expect(await sut.acquireOutboxLease('relay-a', 60_000)).toBe(true);
        } finally {
          vi.useRealTimers();
        }
      });
    });

    describe('find', () => {
      const seedShows = async (): Promise<Show[]> => {
        const shows = [
          aShow({
            id: 'f-a',
            title: 'Alpha',
            venueId: 'v1',
            priceCents: 3_000,
            tags: ['rock'],
            startsAt: new Date('2030-01-01T00:00:00Z'),
            code: 'A',
          }),
          aShow({
            id: 'f-b',
            title: 'Bravo',
            venueId: 'v2',
            priceCents: 1_000,
            tags: ['jazz', 'rock'],
            startsAt: new Date('2030-03-01T00:00:00Z'),
            code: 'B',
          }),
          aShow({
            id: 'f-c',
            title: 'Charlie',
            venueId: 'v1',
            priceCents: 2_000,
            tags: [],
            startsAt: new Date('2030-02-01T00:00:00Z'),
            code: null,
          }),
          aShow({
            id: 'f-d',
            title: 'Delta',
            venueId: 'v3',
            priceCents: 2_000,
            tags: ['pop'],
            startsAt: new Date('2030-04-01T00:00:00Z'),
            code: 'D',
          }),
        ];
        const stored: Show[] = [];
        for (const show of shows) stored.push(await sut.insert(show));
        return stored;
      };
      const ids = (shows: Show[]): string[] => shows.map((show) => show.id);

      it('filters by equality, $in, $ne and ranges', async () => {
        await seedShows();
        expect(ids(await sut.find({ venueId: 'v1' }, { sort: { title: 1 } }))).toEqual([
          'f-a',
          'f-c',
        ]);
        expect(ids(await sut.find({ venueId: { $in: ['v2', 'v3'] } }))).toEqual(['f-b', 'f-d']);
        expect(ids(await sut.find({ venueId: { $ne: 'v1' } }))).toEqual(['f-b', 'f-d']);
        expect(ids(await sut.find({ priceCents: { $gte: 2_000, $lt: 3_000 } }))).toEqual([
          'f-c',
          'f-d',
        ]);
        expect(
          ids(await sut.find({ startsAt: { $gt: new Date('2030-02-15T00:00:00Z') } })),
        ).toEqual(['f-b', 'f-d']);
        expect(ids(await sut.find({ venueId: 'v1', priceCents: 3_000 }))).toEqual(['f-a']);
        expect(ids(await sut.find({ id: { $in: ['f-d', 'f-a', 'missing'] } }))).toEqual([
          'f-a',
          'f-d',
        ]);
        expect(ids(await sut.find({ version: 1, title: 'Bravo' }))).toEqual(['f-b']);
      });

      it('matches an array field by any element, and null by missing or null', async () => {
        await seedShows();
        await sut.insert(aShow({ id: 'f-e', code: 'E', poster: null }));
        expect(ids(await sut.find({ tags: 'rock' }))).toEqual(['f-a', 'f-b']);
        expect(ids(await sut.find({ tags: { $in: ['pop', 'jazz'] } }))).toEqual(['f-b', 'f-d']);
        expect(ids(await sut.find({ code: null }))).toEqual(['f-c']);
        expect(ids(await sut.find({ poster: null }))).toEqual(['f-a', 'f-b', 'f-c', 'f-d', 'f-e']);
      });

      it('does not compare across kinds in ranges', async () => {
        await seedShows();
        // A string bound never matches numbers, as in MongoDB.
        expect(await sut.find({ priceCents: { $gt: '0' as unknown as number } })).toEqual([]);
      });

      it('sorts by several fields, breaks ties by id, and pages with skip and limit', async () => {
        await seedShows();
        expect(ids(await sut.find({}, { sort: { priceCents: -1 } }))).toEqual([
          'f-a',
          'f-c',
          'f-d',
          'f-b',
        ]);
        expect(ids(await sut.find({}, { sort: { priceCents: 1, title: -1 } }))).toEqual([
          'f-b',
          'f-d',
          'f-c',
          'f-a',
        ]);
        expect(ids(await sut.find({}, { sort: { startsAt: 1 }, skip: 1, limit: 2 }))).toEqual([
          'f-c',
          'f-b',
        ]);
        expect(ids(await sut.find({}, { sort: { startsAt: 1 }, skip: 3, limit: 2 }))).toEqual([
          'f-d',
        ]);
        expect(await sut.find({}, { limit: 0 })).toEqual([]);
        expect(ids(await sut.find())).toEqual(['f-a', 'f-b', 'f-c', 'f-d']);
      });

      it('returns whole documents with their versions', async () => {
        const stored = await seedShows();
        await sut.update('f-b', 1, (c) => ({ ...c, title: 'Bravo 2' }));
        const found = await sut.find({ id: 'f-b' });
        expect(found).toEqual([{ ...stored[1], title: 'Bravo 2', version: 2 }]);
      });

      it('counts what find would return', async () => {
        await seedShows();
        expect(await sut.count()).toBe(4);
        expect(await sut.count({ venueId: 'v1' })).toBe(2);
        await sut.delete('f-a');
        expect(await sut.count({ venueId: 'v1' })).toBe(1);
      });

      it('rejects operators outside the portable subset', async () => {
        expect(await rejectionKind(sut.find({ title: { $regex: 'A' } as unknown as string }))).toBe(
          'invalid_argument',
        );
      });
    });
  });
}
