import { describe, expect, it } from 'vitest';
import { AvailabilityChanged, EventStatus, SyncScope } from '@marquee/proto/catalog/v1';
import { createMemoryEventRecords } from '../../src/adapters/memory-event-records.js';
import { createMemoryAvailabilityRecords } from '../../src/adapters/availability-records.js';
import { protobufEventCodec } from '../../src/adapters/protobuf-event-codec.js';
import { anEvent, query, text } from '../builders.js';
import { Catalog } from '../../src/app/catalog.js';
import { availabilityUpdateOf } from '../../src/adapters/proto/kafka-messages.js';

const clock = () => new Date('2026-01-01T00:00:00Z');
const names = (sut: Catalog, keyword: string) =>
  sut.searchEvents(query({ keyword })).items.map((h) => h.event.names?.values['en-us']);

describe('Catalog.applyEventChanged', () => {
  it('applies a newer version and ignores an older or repeated one', async () => {
    const sut = new Catalog({
      records: createMemoryEventRecords(),
      availability: createMemoryAvailabilityRecords(),
      clock,
      eventCodec: protobufEventCodec,
    });
    const v1 = anEvent({ id: 'E1', version: 1, names: text('First Name') });
    const v2 = { ...v1, version: 2, names: text('Second Name') };
    expect(await sut.applyEventChanged('E1', v1)).toBe('applied');
    expect(await sut.applyEventChanged('E1', v2)).toBe('applied');
    expect(await sut.applyEventChanged('E1', v1)).toBe('stale');
    expect(await sut.applyEventChanged('E1', v2)).toBe('stale');
    expect(names(sut, 'name')).toEqual(['Second Name']);
  });

  it('deletes on a tombstone and never lets an older state bring the event back', async () => {
    const sut = new Catalog({
      records: createMemoryEventRecords(),
      availability: createMemoryAvailabilityRecords(),
      clock,
      eventCodec: protobufEventCodec,
    });
    const v3 = anEvent({ id: 'E2', version: 3, names: text('Doomed Show') });
    await sut.applyEventChanged('E2', v3);
    expect(await sut.applyEventChanged('E2', null)).toBe('deleted');
    expect(names(sut, 'doomed')).toEqual([]);
    expect(() => sut.getEvent('E2')).toThrow(expect.objectContaining({ kind: 'not_found' }));
    expect(await sut.applyEventChanged('E2', { ...v3, version: 2 })).toBe('stale');
    expect(await sut.applyEventChanged('E2', null)).toBe('already-deleted');
    expect(names(sut, 'doomed')).toEqual([]);
    // A newer state after the deletion is a new life of the event.
    expect(await sut.applyEventChanged('E2', { ...v3, version: 4 })).toBe('applied');
    expect(names(sut, 'doomed')).toEqual(['Doomed Show']);
  });

  it('refuses a record whose key is not the event id', async () => {
    const sut = new Catalog({
      records: createMemoryEventRecords(),
      availability: createMemoryAvailabilityRecords(),
      clock,
      eventCodec: protobufEventCodec,
    });
    await expect(sut.applyEventChanged('OTHER', anEvent({ id: 'E3' }))).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
  });

  it('getEvent hides inactive events and answers not_found for unknown ids', async () => {
    const sut = new Catalog({
      records: createMemoryEventRecords(),
      availability: createMemoryAvailabilityRecords(),
      clock,
      eventCodec: protobufEventCodec,
    });
    await sut.applyEventChanged('E4', anEvent({ id: 'E4', active: false }));
    expect(() => sut.getEvent('E4')).toThrow(expect.objectContaining({ kind: 'not_found' }));
    expect(() => sut.getEvent('nope')).toThrow(expect.objectContaining({ kind: 'not_found' }));
  });
});

describe('Catalog.rebuild', () => {
  it('rebuilds the same index from the read model alone (live events only)', async () => {
    const records = createMemoryEventRecords();
    const availability = createMemoryAvailabilityRecords();
    const before = new Catalog({
      records,
      availability,
      clock,
      rebuildPageSize: 2,
      eventCodec: protobufEventCodec,
    });
    for (let i = 0; i < 5; i++) {
      await before.applyEventChanged(
        `R${i}`,
        anEvent({ id: `R${i}`, names: text(`Rebuilt Show ${i}`) }),
      );
    }
    await before.applyEventChanged('R2', null);
    const sut = new Catalog({
      records,
      availability,
      clock,
      rebuildPageSize: 2,
      eventCodec: protobufEventCodec,
    });
    expect(await sut.rebuild()).toBe(4);
    expect(names(sut, 'rebuilt').sort()).toEqual(names(before, 'rebuilt').sort());
    expect(await sut.applyEventChanged('R1', anEvent({ id: 'R1', version: 1 }))).toBe('stale');
  });
});

/** An availability-changed message as the Kafka port hands it on; `areas` as [area id, available]. */
const availabilityOf = (
  eventId: string,
  sequence: number,
  scope: SyncScope,
  areas: [string, number][],
  totalAvailable = areas.reduce((sum, [, n]) => sum + n, 0),
) =>
  availabilityUpdateOf(
    AvailabilityChanged.fromPartial({
      eventId,
      scope,
      sequence,
      totalAvailable,
      observedAt: new Date('2025-12-31T12:00:00Z'),
      areas: areas.map(([areaId, available]) => ({ areaId, available })),
    }),
  );
const { SYNC_SCOPE_FULL: FULL, SYNC_SCOPE_PARTIAL: PARTIAL } = SyncScope;
/** The ids of a search, with and without `seatsAvailable`. */
const ids = (sut: Catalog, keyword: string, seatsAvailable = false) =>
  sut.searchEvents(query({ keyword, seatsAvailable })).items.map((h) => h.event.id);

describe('Catalog.applyAvailabilityChanged', () => {
  const newCatalog = () =>
    new Catalog({
      records: createMemoryEventRecords(),
      availability: createMemoryAvailabilityRecords(),
      clock,
      eventCodec: protobufEventCodec,
    });

  it('keeps availability for an event it does not know yet and applies it when the event arrives', async () => {
    const sut = newCatalog();
    expect(await sut.applyAvailabilityChanged('AV1', availabilityOf('AV1', 1, FULL, [], 0))).toBe(
      'applied',
    );
    await sut.applyEventChanged('AV1', anEvent({ id: 'AV1', names: text('Early Sellout') }));
    await sut.applyEventChanged('AV2', anEvent({ id: 'AV2', names: text('Early Seats') }));
    expect(ids(sut, 'early').sort()).toEqual(['AV1', 'AV2']);
    expect(ids(sut, 'early', true)).toEqual(['AV2']);
    expect(sut.getEvent('AV1').event.availability).toEqual({ soldOut: true });
    expect(sut.getEvent('AV2').event.availability).toBeUndefined();
  });

  it('leaves sold-out events out of seats_available and brings them back when tickets return', async () => {
    const sut = newCatalog();
    await sut.applyEventChanged('AV3', anEvent({ id: 'AV3', names: text('Harbour Gala') }));
    const before = sut.sequence;
    // Counts that change nothing discovery shows move neither the index nor its sequence.
    await sut.applyAvailabilityChanged(
      'AV3',
      availabilityOf('AV3', 1, FULL, [
        ['A', 3],
        ['B', 1],
      ]),
    );
    expect(sut.sequence).toBe(before);
    expect(ids(sut, 'harbour', true)).toEqual(['AV3']);
    // Each area sells out in a partial synchronisation of its own.
    await sut.applyAvailabilityChanged('AV3', availabilityOf('AV3', 2, PARTIAL, [['A', 0]]));
    expect(ids(sut, 'harbour', true)).toEqual(['AV3']);
    await sut.applyAvailabilityChanged('AV3', availabilityOf('AV3', 3, PARTIAL, [['B', 0]]));
    expect(sut.sequence).toBe(before + 1);
    expect(ids(sut, 'harbour', true)).toEqual([]);
    expect(ids(sut, 'harbour')).toEqual(['AV3']);
    expect(sut.searchEvents(query({ keyword: 'harbour' })).items[0]!.event.availability).toEqual({
      soldOut: true,
    });
    await sut.applyAvailabilityChanged('AV3', availabilityOf('AV3', 4, PARTIAL, [['B', 2]]));
    expect(sut.sequence).toBe(before + 2);
    expect(ids(sut, 'harbour', true)).toEqual(['AV3']);
    expect(sut.getEvent('AV3').event.availability).toBeUndefined();
  });

  it('drops a message whose sequence is not greater than the last applied', async () => {
    const sut = newCatalog();
    await sut.applyEventChanged('AV4', anEvent({ id: 'AV4', names: text('Ordered Show') }));
    const soldOut = availabilityOf('AV4', 5, FULL, [['A', 0]]);
    expect(await sut.applyAvailabilityChanged('AV4', soldOut)).toBe('applied');
    expect(await sut.applyAvailabilityChanged('AV4', soldOut)).toBe('stale');
    expect(
      await sut.applyAvailabilityChanged('AV4', availabilityOf('AV4', 4, FULL, [['A', 9]])),
    ).toBe('stale');
    expect(ids(sut, 'ordered', true)).toEqual([]);
  });

  it('keeps availability across new states of the event and ignores what a producer put there', async () => {
    const sut = newCatalog();
    const v1 = anEvent({ id: 'AV5', names: text('Kept Show') });
    await sut.applyEventChanged('AV5', v1);
    await sut.applyAvailabilityChanged('AV5', availabilityOf('AV5', 1, FULL, [], 0));
    await sut.applyEventChanged('AV5', { ...v1, version: 2, names: text('Kept Show Renamed') });
    expect(ids(sut, 'renamed', true)).toEqual([]);
    expect(sut.getEvent('AV5').event.availability).toEqual({ soldOut: true });

    const claimed = anEvent({ id: 'AV6', names: text('Claimed Show') });
    await sut.applyEventChanged('AV6', { ...claimed, availability: { soldOut: true } });
    expect(ids(sut, 'claimed', true)).toEqual(['AV6']);
    expect(sut.getEvent('AV6').event.availability).toBeUndefined();
  });

  it('still needs the on-sale status for seats_available', async () => {
    const sut = newCatalog();
    await sut.applyEventChanged(
      'AV7',
      anEvent({ id: 'AV7', names: text('Offsale Show'), status: EventStatus.EVENT_STATUS_OFFSALE }),
    );
    await sut.applyAvailabilityChanged('AV7', availabilityOf('AV7', 1, FULL, [['A', 10]]));
    expect(ids(sut, 'offsale', true)).toEqual([]);
  });

  it('refuses a record whose key is not its event id, and a scope that is neither full nor partial', async () => {
    const sut = newCatalog();
    await expect(
      sut.applyAvailabilityChanged('OTHER', availabilityOf('AV8', 1, FULL, [])),
    ).rejects.toMatchObject({ kind: 'invalid_argument' });
    await expect(
      sut.applyAvailabilityChanged(
        'AV8',
        availabilityOf('AV8', 1, SyncScope.SYNC_SCOPE_UNSPECIFIED, []),
      ),
    ).rejects.toMatchObject({ kind: 'invalid_argument' });
  });

  it('rebuilds availability from the read model with the events', async () => {
    const records = createMemoryEventRecords();
    const availability = createMemoryAvailabilityRecords();
    const before = new Catalog({ records, availability, clock, eventCodec: protobufEventCodec });
    await before.applyEventChanged('AV9', anEvent({ id: 'AV9', names: text('Rebuilt Sellout') }));
    await before.applyAvailabilityChanged('AV9', availabilityOf('AV9', 2, PARTIAL, [['A', 0]]));
    // Availability of an event that has not arrived yet is kept through a rebuild too.
    await before.applyAvailabilityChanged('AVX', availabilityOf('AVX', 1, FULL, [], 0));
    const sut = new Catalog({ records, availability, clock, eventCodec: protobufEventCodec });
    await sut.rebuild();
    expect(ids(sut, 'rebuilt')).toEqual(['AV9']);
    expect(ids(sut, 'rebuilt', true)).toEqual([]);
    await sut.applyEventChanged('AVX', anEvent({ id: 'AVX', names: text('Rebuilt Later') }));
    expect(ids(sut, 'later', true)).toEqual([]);
    expect(
      await sut.applyAvailabilityChanged('AV9', availabilityOf('AV9', 2, FULL, [['A', 5]])),
    ).toBe('stale');
  });
});
