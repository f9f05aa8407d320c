import { Event } from '@marquee/proto/catalog/v1';
import type { EventChanged } from '@marquee/proto/catalog/v1';
import { describe, expect, it } from 'vitest';
import { DealsApp } from '../../../src/app/deals-app.js';
import { eventChangedHandler } from '../../../src/ports/kafka/event-changed-handler.js';
import { memoryStorage } from '../../builders.js';

const record = (key: string, value: EventChanged | null) => ({
  topic: 'event-changed',
  key,
  value,
  id: 'x',
  type: 't',
  source: 's',
  time: new Date(),
  partition: 0,
  offset: '0',
  attempt: 1,
  headers: {},
});

function setup() {
  const storage = memoryStorage();
  const app = new DealsApp({
    deals: storage.deals,
    events: storage.events,
    clock: { now: () => new Date('2030-01-01') },
    ids: { dealId: () => 'D1' },
  });
  return { sut: eventChangedHandler(app), storage };
}

describe('event-changed handler', () => {
  it('projects a state and deletes on a tombstone', async () => {
    const { sut, storage } = setup();
    await sut(
      record('E1', {
        event: Event.fromPartial({ id: 'E1', version: 2, active: true }),
        changedAt: new Date(),
      }),
    );
    expect(await storage.events.get('E1')).toMatchObject({ eventVersion: 2, deleted: false });

    await sut(record('E1', null));

    expect(await storage.events.get('E1')).toMatchObject({ eventVersion: 3, deleted: true });
  });

  it('refuses a record whose key is not its event id, so the bus retries and parks it on the dlq', async () => {
    const { sut, storage } = setup();
    await expect(
      sut(
        record('E1', { event: Event.fromPartial({ id: 'E2', version: 1 }), changedAt: new Date() }),
      ),
    ).rejects.toThrow(/key/);
    await expect(sut(record('E1', { event: undefined, changedAt: new Date() }))).rejects.toThrow(
      /event id/,
    );
    expect(await storage.events.get('E1')).toBeUndefined();
    expect(await storage.events.get('E2')).toBeUndefined();
  });
});
