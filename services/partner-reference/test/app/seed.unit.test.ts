import { describe, expect, it } from 'vitest';
import { harness } from '../fixtures.js';
import { seedDemoInventory } from '../../src/app/seed.js';

describe('seedDemoInventory', () => {
  it('creates two venues and four bookable events in the coming months, once', async () => {
    const { sut, backOffice, clock } = harness();

    const seeded = await seedDemoInventory(backOffice, { now: clock.now() });

    expect(seeded?.venues).toHaveLength(2);
    expect(seeded?.events).toHaveLength(4);
    for (const { details, startsAt } of await backOffice.listEvents(undefined)) {
      expect(startsAt.getTime()).toBeGreaterThan(clock.now().getTime());
      expect(startsAt.getTime()).toBeLessThan(clock.now().getTime() + 200 * 86_400_000);
      expect(details.textInfos.map((t) => t.lang)).toEqual(['en-us', 'fr-fr']);
      expect(details.logos).toHaveLength(1);
    }
    const arenaEvent = seeded!.events[0]!;
    const availability = await sut.availability({ eventId: arenaEvent, detail: 'overview' });
    expect(availability.areas.reduce((sum, a) => sum + a.available, 0)).toBe(500);
    const fanClub = await sut.book({
      eventId: arenaEvent,
      language: 'fr-fr',
      channelType: 'INTERNET',
      lines: [{ priceTypeId: 'FANCLUB', quantity: 2, accessCode: 'FANCLUB' }],
    });
    expect(fanClub.booking.ticketsAmountMinor).toBe(10400);
    expect(await seedDemoInventory(backOffice)).toBeUndefined();
  });
});
