import { createMemoryStore } from '@marquee/platform/store';
import { describe, expect, it } from 'vitest';
import { area, availability, EVENT_ID, partnerEvent } from '../support/events.js';
import { DurableProjection } from '../../src/adapters/durable-projection.js';
import { emptyProjection, newerProjection } from '../../src/domain/event-projection.js';
import {
  EventProjectionStore,
  type EventProjectionDoc,
} from '../../src/adapters/event-projection-store.js';

const silent = { info: () => undefined, warn: () => undefined };

function setup(durable = createMemoryStore<EventProjectionDoc>()) {
  const memory = createMemoryStore<EventProjectionDoc>();
  const keeper = new DurableProjection(memory, durable, silent);
  const projection = new EventProjectionStore(
    memory,
    () => new Date('2030-06-01T00:00:00Z'),
    (id) => keeper.changed(id),
  );
  return { memory, durable, keeper, projection };
}

describe('newerProjection', () => {
  const stored = { ...emptyProjection(EVENT_ID), eventVersion: 3, availabilitySequence: 7 };

  it('takes the event part by version and the areas by sequence, each from the newer side', () => {
    const held = {
      ...emptyProjection(EVENT_ID),
      eventVersion: 4,
      availabilitySequence: 5,
      areas: [{ ...area(), available: 1 }],
    };
    const merged = newerProjection({ ...stored, areas: [area()] }, held);
    expect(merged).toMatchObject({ eventVersion: 4, availabilitySequence: 7 });
    expect(merged?.areas).toEqual([area()]);
  });

  it('answers nothing when the stored copy is as new or newer, so a write never goes backwards', () => {
    expect(newerProjection(stored, { ...stored })).toBeUndefined();
    expect(newerProjection(stored, { ...stored, eventVersion: 2 })).toBeUndefined();
  });

  it('counts a tombstone of the same version as newer than the state it removed', () => {
    expect(newerProjection(stored, { ...stored, removed: true })).toMatchObject({
      removed: true,
      eventVersion: 3,
    });
  });
});

describe('DurableProjection', () => {
  it('writes behind each changed event once per pass, however many records changed it', async () => {
    const { durable, keeper, projection } = setup();
    await projection.applyEvent(partnerEvent());
    await projection.applyAvailability(availability(1, [area()]));
    await projection.applyAvailability(availability(2, [area({ available: 4 })]));
    expect(keeper.pending).toBe(1);
    expect(await durable.get(EVENT_ID)).toBeUndefined();

    expect(await keeper.flush()).toBe(1);
    const written = await durable.get(EVENT_ID);
    expect(written).toMatchObject({ eventVersion: 1, availabilitySequence: 2 });
    expect(written?.areas[0]?.available).toBe(4);
    expect(keeper.pending).toBe(0);
    expect(await keeper.flush()).toBe(0);
  });

  it('loads the durable copy at start, so availability the topic no longer holds is known', async () => {
    const first = setup();
    await first.projection.applyEvent(partnerEvent());
    await first.projection.applyAvailability(availability(5, [area({ available: 9 })]));
    await first.keeper.stop();

    // A new process over the same collection: nothing on the topics but the event itself.
    const second = setup(first.durable);
    expect(await second.keeper.load()).toBe(1);
    await second.projection.applyEvent(partnerEvent());
    const read = await second.projection.get(EVENT_ID);
    expect(read?.areas.map((a) => a.available)).toEqual([9]);
    // Older records replayed after the load change nothing, so nothing is written again.
    await second.projection.applyAvailability(availability(4, [area({ available: 1 })]));
    expect(second.keeper.pending).toBe(0);
  });

  it('merges into a copy another replica wrote, never taking it backwards', async () => {
    const shared = createMemoryStore<EventProjectionDoc>();
    const a = setup(shared);
    const b = setup(shared);
    await a.projection.applyEvent(partnerEvent({ version: 2 }));
    await a.projection.applyAvailability(availability(3, [area({ available: 3 })]));
    await a.keeper.flush();
    // b saw a newer availability and an older event version.
    await b.projection.applyEvent(partnerEvent({ version: 1 }));
    await b.projection.applyAvailability(availability(6, [area({ available: 6 })]));
    await b.keeper.flush();
    expect(await shared.get(EVENT_ID)).toMatchObject({ eventVersion: 2, availabilitySequence: 6 });
    // a writes again with its older areas: the copy keeps b's.
    await a.projection.applyEvent(partnerEvent({ version: 3 }));
    await a.keeper.flush();
    const merged = await shared.get(EVENT_ID);
    expect(merged).toMatchObject({ eventVersion: 3, availabilitySequence: 6 });
    expect(merged?.areas[0]?.available).toBe(6);
  });

  it('keeps an event whose write failed for the next pass', async () => {
    const durable = createMemoryStore<EventProjectionDoc>();
    const failing = {
      ...durable,
      insert: async () => {
        throw Object.assign(new Error('down'), { kind: 'unavailable' });
      },
    };
    const { keeper, projection } = setup(failing);
    await projection.applyEvent(partnerEvent());
    expect(await keeper.flush()).toBe(0);
    expect(keeper.pending).toBe(1);
  });
});
