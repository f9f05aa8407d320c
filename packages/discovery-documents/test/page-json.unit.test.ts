import { describe, expect, it } from 'vitest';
import { DiscoveryAttraction, DiscoveryVenue, Event } from '@marquee/proto/catalog/v1';
import type { LocalizedString } from '@marquee/proto/common/v1';
import {
  attractionDocument,
  eventDocument,
  eventRefs,
  resolvedOf,
  venueDocument,
} from '../src/hal.js';
import { eventOpening, linksJson, Utf8Writer, writeEventDocument } from '../src/page-json.js';

const text = (values: Record<string, string>): LocalizedString => ({ values });
const venue = DiscoveryVenue.fromPartial({
  id: 'ZV1',
  names: text({ 'en-us': 'Hall "One"', 'fr-fr': 'Salle Une' }),
  upcomingEvents: 3,
});
const attractions = ['K1', 'K2'].map((id) =>
  DiscoveryAttraction.fromPartial({
    id,
    names: text({ 'en-us': `Band ${id}` }),
    upcomingEvents: 1,
  }),
);
const event = Event.fromPartial({
  id: 'EVT1',
  version: 2,
  names: text({ 'en-us': 'Spring Concert', 'fr-fr': 'Concert de printemps' }),
  location: { $case: 'venue', value: { ref: { $case: 'id', value: 'ZV1' }, resolvedId: 'ZV1' } },
  attractions: attractions.map((a) => ({ ref: { $case: 'id', value: a.id }, resolvedId: a.id })),
});

const json = (value: unknown) => JSON.stringify(value);

describe('event documents as joined text', () => {
  it.each([undefined, 'fr-fr'])(
    'joins, for locale %s, exactly what JSON.stringify writes of eventDocument',
    (locale) => {
      const out = new Utf8Writer();
      writeEventDocument(
        out,
        Buffer.from(eventOpening(event, locale)),
        Buffer.from(json(venueDocument(venue, locale))),
        attractions.map((a) => Buffer.from(json(attractionDocument(a, locale)))),
      );
      expect(out.finish().toString()).toBe(
        json(eventDocument(event, resolvedOf([venue], attractions), locale)),
      );
    },
  );

  it('leaves out of the links what the page does not carry', () => {
    const carried = resolvedOf([], [attractions[1]!]);
    const body = json(eventDocument(event, carried, undefined));
    const links = linksJson(
      eventRefs(event),
      () => undefined,
      (id) => (id === 'K2' ? json(attractionDocument(attractions[1]!, undefined)) : undefined),
      undefined,
    );
    expect(body.endsWith(links)).toBe(true);
    expect(JSON.parse(`{${links}`)).toEqual({
      _links: {
        self: { href: '/discovery/v2/events/EVT1' },
        attractions: [{ href: '/discovery/v2/attractions/K2' }],
        venues: [],
      },
      _embedded: {
        venues: [],
        attractions: [JSON.parse(json(attractionDocument(attractions[1]!, undefined)))],
      },
    });
  });

  it('writes past the end of its first buffer', () => {
    const out = new Utf8Writer();
    const chunk = 'é'.repeat(100_000);
    for (let i = 0; i < 3; i++) out.text(chunk);
    out.bytes(Buffer.from('!'));
    const written = out.finish(Buffer.from('>'));
    expect(written.length).toBe(1 + 3 * 200_000 + 1);
    expect(written.toString()).toBe(`>${chunk.repeat(3)}!`);
  });
});
