import { expect, it } from 'vitest';
import { eventBody, type ManualClock, venueBody } from './fixtures.js';
import type { HttpHarness } from './http.js';

/**
 * The contention scenario of partner-reference, run on each storage: 1,000 concurrent
 * `POST /v1/bookings` of one ticket each for an event of exactly 100 seats.
 */
export function contentionScenario(
  setup: (clock: ManualClock) => Promise<{ h: HttpHarness; clock: ManualClock }>,
  makeClock: () => ManualClock,
): void {
  const prepare = async () => {
    const clock = makeClock();
    const { h } = await setup(clock);
    const auth = await h.bearer();
    const venue = await h.http.inject({
      method: 'POST',
      url: '/admin/v1/venues',
      headers: h.admin,
      payload: venueBody({ rows: 10, perRow: 10 }),
    });
    const { venue_id, manifest_ids } = venue.json<{ venue_id: string; manifest_ids: string[] }>();
    const event = await h.http.inject({
      method: 'POST',
      url: '/admin/v1/events',
      headers: h.admin,
      payload: eventBody(venue_id, manifest_ids[0]!),
    });
    const eventId = event.json<{ event_id: string }>().event_id;
    const bookOne = (i: number) =>
      h.http.inject({
        method: 'POST',
        url: '/v1/bookings',
        headers: auth,
        payload: {
          request: {
            event_id: eventId,
            language: 'en-us',
            channel_info: { channel_type: 'INTERNET' },
            tickets: [{ price_type_id: 'ADULT', quantity: 1 }],
            external_reference: `cart-${i}`,
          },
        },
      });
    const available = async () =>
      (
        await h.http.inject({
          method: 'GET',
          url: `/v1/events/${eventId}/availability`,
          headers: auth,
        })
      ).json<{ areas: Array<{ available: number }> }>().areas[0]!.available;
    return { h, clock, bookOne, available };
  };

  it('holds exactly 100 of 1,000 concurrent one-seat bookings, each seat once', async () => {
    const { h, bookOne, available } = await prepare();
    try {
      const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) => bookOne(i)));

      const held = answers.filter((a) => a.statusCode === 201);
      const refused = answers.filter((a) => a.statusCode === 410);
      expect(held).toHaveLength(100);
      expect(refused).toHaveLength(900);
      expect(refused.every((a) => [303, 306].includes(a.json<{ id: number }>().id))).toBe(true);
      const seats = held.map(
        (a) =>
          a.json<{ booking: { tickets: Array<{ seat_id: string }> } }>().booking.tickets[0]!
            .seat_id,
      );
      expect(new Set(seats).size).toBe(100);
      expect(await available()).toBe(0);
      expect(h.statuses.filter((s) => s >= 500)).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it('puts the seats of expired bookings back on sale', async () => {
    const { h, clock, bookOne, available } = await prepare();
    try {
      const answers = await Promise.all(Array.from({ length: 120 }, (_, i) => bookOne(i)));
      expect(answers.filter((a) => a.statusCode === 201)).toHaveLength(100);
      expect(await available()).toBe(0);

      clock.advance(60_000);

      expect(await h.partner.app.sweep()).toBe(100);
      expect(await available()).toBe(100);
      expect((await bookOne(1000)).statusCode).toBe(201);
    } finally {
      await h.close();
    }
  });
}
