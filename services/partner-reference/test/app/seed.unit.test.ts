import { describe, expect, it } from 'vitest';
import { harness } from '../fixtures.js';
import { seedDemoInventory } from '../../src/app/seed.js';

describe('seedDemoInventory', () => {
  it('creates two venues and four bookable events in the coming months, once', async () => {
    const { sut, backOffice, clock } = harness();

    const seeded = await seedDemoInventory(backOffice, { now: clock.now() });

    expect(seeded?.venues).toHaveLength(2);
    expect(seeded?.events).toHaveLength(4);
    const { events } = await backOffice.listEvents(undefined);
    for (const { event } of events) {
      expect(Date.parse(event.date_time)).toBeGreaterThan(clock.now().getTime());
      expect(Date.parse(event.date_time)).toBeLessThan(clock.now().getTime() + 200 * 86_400_000);
      expect(event.text_infos.map((t) => t.lang)).toEqual(['en-us', 'fr-fr']);
      expect(event.logos).toHaveLength(1);
    }
    const arenaEvent = seeded!.events[0]!;
    const availability = await sut.availability(arenaEvent, {});
    expect(availability.areas.reduce((sum, a) => sum + a.available, 0)).toBe(500);
    const fanClub = await sut.book({
      event_id: arenaEvent,
      language: 'fr-fr',
      channel_info: { channel_type: 'INTERNET' },
      tickets: [{ price_type_id: 'FANCLUB', quantity: 2, access_code: 'FANCLUB' }],
    });
    expect(fanClub.booking.tickets_amount).toBe('10400');
    expect(await seedDemoInventory(backOffice)).toBeUndefined();
  });
});
