import { describe, expect, it } from 'vitest';
import { errorKindOf } from '@marquee/platform/kernel';
import type { PartnerRepositories } from '../src/app/ports.js';
import type { EventRecord } from '../src/domain/event.js';
import type { BookingRecord } from '../src/domain/model.js';
import { eventDetails } from './fixtures.js';
import { newInventory } from '../src/domain/inventory.js';

const ticket = {
  ticketId: 'B-1-1',
  areaId: 'A1',
  row: 'A',
  seat: '1',
  seatId: 'A1-A-1',
  generalAdmission: false,
  priceLevelId: 'PL1',
  priceTypeId: 'ADULT',
  amountMinor: 100,
};

const booking = (id: string, createdAt: Date, eventId = 'E1'): Omit<BookingRecord, 'version'> => ({
  id,
  eventId,
  status: 'BOOKED',
  language: 'en-us',
  channelType: 'INTERNET',
  createdAt,
  updatedAt: createdAt,
  expiresAt: new Date(createdAt.getTime() + 600_000),
  currency: 'EUR',
  ticketsAmountMinor: 100,
  ticketsQuantity: 1,
  tickets: [ticket],
});

const event = (
  id: string,
  name: string,
  startsAt: string,
  modified: string,
): Omit<EventRecord, 'version'> => ({
  id,
  venueId: 'V1',
  status: 'ON_SALE',
  details: eventDetails(name, startsAt),
  createdAt: new Date(modified),
  lastModifiedAt: new Date(modified),
  startsAt: new Date(startsAt),
  sortName: name,
});

const kindOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return errorKindOf(error);
  }
  return undefined;
};

/** What partner-reference asks of its repositories, run on memory and on the Mongo-wire server. */
export function repositoriesContract(name: string, make: () => Promise<PartnerRepositories>): void {
  describe(`partner-reference repositories (${name})`, () => {
    it('reads back what it stores, dates as dates', async () => {
      const sut = await make();
      const at = new Date('2030-01-01T10:00:00.000Z');
      await sut.bookings.insert(booking('B-1', at));

      const read = await sut.bookings.get('B-1');

      expect(read).toMatchObject({ id: 'B-1', version: 1, createdAt: at, status: 'BOOKED' });
      expect(read).toMatchObject({ ticketsAmountMinor: 100, tickets: [ticket] });
      expect(await sut.bookings.get('B-none')).toBeUndefined();
    });

    it('refuses a second record with the same id (already_exists) and a stale update (aborted)', async () => {
      const sut = await make();
      const stored = await sut.bookings.insert(booking('B-1', new Date()));
      expect(await kindOf(sut.bookings.insert(booking('B-1', new Date())))).toBe('already_exists');
      const { version, ...rest } = stored;
      await sut.bookings.update('B-1', version, { ...rest, status: 'RELEASED' });

      expect(
        await kindOf(sut.bookings.update('B-1', version, { ...rest, status: 'EXPIRED' })),
      ).toBe('aborted');
      expect((await sut.bookings.get('B-1'))?.status).toBe('RELEASED');
    });

    it('pages an event’s transactions of a period, oldest first', async () => {
      const sut = await make();
      const base = Date.parse('2030-01-01T00:00:00Z');
      for (const [i, minutes] of [30, 10, 20, 50, 70].entries())
        await sut.bookings.insert(booking(`B-${i}`, new Date(base + minutes * 60_000)));
      await sut.bookings.insert(booking('B-other', new Date(base + 15 * 60_000), 'E2'));
      const filter = {
        eventId: 'E1',
        createdAt: { $gte: new Date(base + 10 * 60_000), $lt: new Date(base + 60 * 60_000) },
      };

      const page = await sut.bookings.find(filter, { sort: { createdAt: 1 }, skip: 1, limit: 2 });

      expect(page.map((b) => b.id)).toEqual(['B-2', 'B-0']);
      expect(await sut.bookings.count(filter)).toBe(4);
    });

    it('finds inventories with a hold due, ignoring those without holds', async () => {
      const sut = await make();
      const areas = [
        { id: 'A', name: 'A', priceLevelId: 'P', generalAdmission: true, capacity: 5 },
      ];
      await sut.inventories.insert({ ...newInventory('E1', areas, new Date()), nextExpiryAt: 100 });
      await sut.inventories.insert({ ...newInventory('E2', areas, new Date()), nextExpiryAt: 300 });
      await sut.inventories.insert(newInventory('E3', areas, new Date()));

      const due = await sut.inventories.find({ nextExpiryAt: { $lte: 200 } });

      expect(due.map((i) => i.id)).toEqual(['E1']);
    });

    it('lists a venue’s events modified since, by date or by name', async () => {
      const sut = await make();
      await sut.events.insert(event('E1', 'zebra', '2030-03-01T00:00:00Z', '2030-01-02T00:00:00Z'));
      await sut.events.insert(event('E2', 'alpha', '2030-04-01T00:00:00Z', '2030-01-03T00:00:00Z'));
      await sut.events.insert(event('E3', 'mid', '2030-02-01T00:00:00Z', '2029-12-01T00:00:00Z'));
      const filter = { venueId: 'V1', lastModifiedAt: { $gte: new Date('2030-01-01T00:00:00Z') } };

      const byDate = await sut.events.find(filter, { sort: { startsAt: 1, sortName: 1 } });
      const byName = await sut.events.find(filter, { sort: { sortName: 1, startsAt: 1 } });

      expect(byDate.map((e) => e.id)).toEqual(['E1', 'E2']);
      expect(byName.map((e) => e.id)).toEqual(['E2', 'E1']);
      expect(byDate[0]!.details).toEqual(eventDetails('zebra', '2030-03-01T00:00:00Z'));
    });
  });
}
