import {
  DiscoveryAttraction,
  DiscoveryVenue,
  Event,
  Inclusion,
  type SearchAttractionsRequest,
  type SearchEventsRequest,
  type SearchVenuesRequest,
} from '@marquee/proto/catalog/v1';
import {
  attractionDocument,
  eventDocument,
  resolvedOf,
  venueDocument,
} from '@marquee/discovery-documents';
import { describe, expect, it } from 'vitest';
import type { DiscoveryCatalog } from '../src/app/discovery-catalog.js';
import { goodKeyAccess, useEdge } from './edge-harness.js';
import { text } from './localized-text.js';

const venue = DiscoveryVenue.fromPartial({
  id: 'ZVENUE1',
  names: text('Rock Arena'),
  postalCode: '10001',
  upcomingEvents: 2,
});
const attraction = DiscoveryAttraction.fromPartial({
  id: 'KATTR1',
  names: text('Rock Band', { 'fr-fr': 'Groupe de rock' }),
  images: [{ url: 'https://img/band.jpg', width: 640, height: 360, ratio: '16_9' }],
  upcomingEvents: 1,
});
const event = Event.fromPartial({
  id: 'EVT000000000001',
  version: 1,
  active: true,
  names: text('Rock Night', { 'fr-fr': 'Nuit du rock' }),
  images: [
    { url: 'https://img/1.jpg', width: 1024, height: 576, ratio: '16_9', fallback: false },
    { url: 'https://img/2.jpg', width: 305, height: 225, ratio: '', fallback: true },
  ],
  attractions: [{ ref: { $case: 'id', value: 'KATTR1' }, resolvedId: 'KATTR1' }],
  location: { $case: 'venue', value: { names: venue.names, resolvedId: 'ZVENUE1' } },
});

interface Asked {
  events: SearchEventsRequest[];
  venues: SearchVenuesRequest[];
  attractions: SearchAttractionsRequest[];
  eventIds: string[];
}
let asked: Asked;
const startEdge = useEdge();

async function edge(overrides: Partial<DiscoveryCatalog> = {}) {
  asked = { events: [], venues: [], attractions: [], eventIds: [] };
  const catalog: Partial<DiscoveryCatalog> = {
    version: () => undefined,
    async searchEvents(query) {
      asked.events.push(query);
      return {
        events: [event],
        venues: [venue],
        attractions: [attraction],
        page: { offset: 0, limit: query.page?.limit ?? 0, total: 1 },
      };
    },
    async searchVenues(query) {
      asked.venues.push(query);
      return { venues: [venue], page: { offset: 0, limit: query.page?.limit ?? 0, total: 1 } };
    },
    async searchAttractions(query) {
      asked.attractions.push(query);
      return {
        attractions: [attraction],
        page: { offset: 0, limit: query.page?.limit ?? 0, total: 1 },
      };
    },
    async getEvent(id) {
      asked.eventIds.push(id);
      if (id !== event.id) throw Object.assign(new Error(`no ${id}`), { kind: 'not_found' });
      return { event, venues: [venue], attractions: [attraction] };
    },
    ...overrides,
  };
  return startEdge({ developerAccess: goodKeyAccess(), catalog });
}

const get = async (url: string, overrides?: Partial<DiscoveryCatalog>) =>
  (await edge(overrides)).inject({ url: `/discovery/v2${url}` });

describe('Discovery v2 suggest', () => {
  it('answers events, venues and attractions of the keyword under _embedded, as their searches do', async () => {
    const response = await get('/suggest?apikey=good-key&keyword=rock');
    expect(response.statusCode).toBe(200);
    expect(response.headers['rate-limit']).toBeDefined();
    const resolved = resolvedOf([venue], [attraction]);
    expect(response.json()).toEqual(
      JSON.parse(
        JSON.stringify({
          _links: { self: { href: '/discovery/v2/suggest?keyword=rock' } },
          _embedded: {
            events: [eventDocument(event, resolved, undefined)],
            venues: [venueDocument(venue, undefined)],
            attractions: [attractionDocument(attraction, undefined)],
          },
        }),
      ),
    );
    expect(asked.events).toHaveLength(1);
    expect(asked.events[0]).toMatchObject({
      keyword: 'rock',
      page: { offset: 0, limit: 5 },
      includeTest: Inclusion.INCLUSION_NO,
    });
    expect(asked.venues[0]).toMatchObject({ keyword: 'rock', page: { offset: 0, limit: 5 } });
    expect(asked.attractions[0]).toMatchObject({ keyword: 'rock', page: { offset: 0, limit: 5 } });
  });

  it('passes size, includeTest and locale, and links itself without the key', async () => {
    const response = await get(
      '/suggest.json?apikey=good-key&keyword=rock&size=2&includeTest=yes&locale=fr-fr',
    );
    expect(response.statusCode).toBe(200);
    const body = response.json() as {
      _links: { self: { href: string } };
      _embedded: { events: Array<{ name: string }>; attractions: Array<{ name: string }> };
    };
    expect(body._links.self.href).toBe(
      '/discovery/v2/suggest?keyword=rock&size=2&includeTest=yes&locale=fr-fr',
    );
    expect(body._embedded.events[0]!.name).toBe('Nuit du rock');
    expect(body._embedded.attractions[0]!.name).toBe('Groupe de rock');
    for (const request of [asked.events[0], asked.venues[0], asked.attractions[0]]) {
      expect(request).toMatchObject({
        page: { offset: 0, limit: 2 },
        includeTest: Inclusion.INCLUSION_YES,
      });
    }
  });

  it.each([
    ['size above the maximum', 'size=31'],
    ['size 0', 'size=0'],
    ['an unknown parameter', 'keywords=rock'],
    ['a bad includeTest', 'includeTest=maybe'],
    ['a keyword too long', `keyword=${'a'.repeat(201)}`],
  ])('answers %s with the Discovery 400 body and asks nothing', async (_case, query) => {
    const response = await get(`/suggest?apikey=good-key&${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toHaveProperty('errors');
    expect(asked.events).toEqual([]);
    expect(asked.venues).toEqual([]);
  });

  it('refuses a missing key with 401 before asking the catalog', async () => {
    const response = await get('/suggest?keyword=rock');
    expect(response.statusCode).toBe(401);
    expect(asked.events).toEqual([]);
  });
});

describe('Discovery v2 event images', () => {
  it("answers the event's images with their _links", async () => {
    const response = await get(`/events/${event.id}/images?apikey=good-key`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      type: 'event',
      id: event.id,
      images: [
        { ratio: '16_9', url: 'https://img/1.jpg', width: 1024, height: 576, fallback: false },
        { url: 'https://img/2.jpg', width: 305, height: 225, fallback: true },
      ],
      _links: { self: { href: `/discovery/v2/events/${event.id}/images` } },
    });
    expect(asked.eventIds).toEqual([event.id]);
  });

  it('keeps the locale in the self link, also for .json', async () => {
    const response = await get(`/events/${event.id}/images.json?apikey=good-key&locale=fr-fr`);
    expect(response.statusCode).toBe(200);
    expect(response.json()._links.self.href).toBe(
      `/discovery/v2/events/${event.id}/images?locale=fr-fr`,
    );
  });

  it('answers an unknown event with 404 DIS1004, a malformed id with 400', async () => {
    const unknown = await get('/events/EVT999/images?apikey=good-key');
    expect(unknown.statusCode).toBe(404);
    expect(JSON.stringify(unknown.json())).toContain('DIS1004');
    const malformed = await get('/events/bad%20id/images?apikey=good-key');
    expect(malformed.statusCode).toBe(400);
  });

  it('answers a catalog that is down with 503, not a 500', async () => {
    const response = await get(`/events/${event.id}/images?apikey=good-key`, {
      async getEvent() {
        throw Object.assign(new Error('down'), { kind: 'unavailable' });
      },
    });
    expect(response.statusCode).toBe(503);
  });
});

describe('Discovery v2 suggest and images in the OpenAPI document', () => {
  it('types both answers', async () => {
    const doc = (await (await edge()).inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, { get?: { responses: Record<string, { content?: unknown }> } }>;
    };
    const schemaOf = (path: string) =>
      JSON.stringify(doc.paths[path]?.get?.responses['200']?.content ?? null);
    expect(schemaOf('/discovery/v2/suggest')).toContain('"attractions"');
    expect(schemaOf('/discovery/v2/suggest')).toContain('"venues"');
    expect(schemaOf('/discovery/v2/events/{id}/images')).toContain('"fallback"');
    expect(doc.paths['/discovery/v2/events/{id}/images']?.get?.responses).toHaveProperty('404');
  });
});
