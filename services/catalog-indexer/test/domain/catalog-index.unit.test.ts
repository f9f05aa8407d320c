import { describe, expect, it } from 'vitest';
import {
  DiscoveryAttraction,
  DiscoveryVenue,
  EventDates,
  EventSort,
  EventStatus,
  Inclusion,
  PriceRangeType,
  type SearchAttractionsRequest,
  type SearchVenuesRequest,
} from '@marquee/proto/catalog/v1';
import { DistanceUnit } from '@marquee/proto/common/v1';
import {
  anEvent,
  attractionQuery,
  classification,
  classificationQuery,
  place,
  query,
  text,
  venueQuery,
} from '../builders.js';
import { protobufEventCodec } from '../../src/adapters/protobuf-event-codec.js';
import { CatalogIndex } from '../../src/domain/catalog-index.js';
import { CITY_ID_BITS, cityId } from '../../src/domain/city-id.js';
import { attractionMessageOf, venueMessageOf } from '../../src/adapters/proto/catalog-messages.js';
import { NameSort } from '@marquee/proto/catalog/v1';

const now = new Date('2026-01-01T00:00:00Z');

function indexOf(...events: ReturnType<typeof anEvent>[]) {
  // The service's codec: events kept as the bytes the gRPC port forwards.
  const sut = new CatalogIndex(protobufEventCodec);
  for (const e of events) sut.upsert(e);
  return sut;
}

const ids = (sut: CatalogIndex, q: Parameters<typeof query>[0]) =>
  sut.searchEvents(query(q), now).items.map((h) => h.event.id);

describe('CatalogIndex.searchEvents', () => {
  it('keyword matches whole words of the name only, every word, any case or accent', () => {
    const rock = anEvent({ names: text('Rock Night at Beyoncé Hall') });
    const rocky = anEvent({ names: text('Rocky Horror Show') });
    const sut = indexOf(rock, rocky);
    expect(ids(sut, { keyword: 'rock' })).toEqual([rock.id]);
    expect(ids(sut, { keyword: 'ROCK beyonce' })).toEqual([rock.id]);
    expect(ids(sut, { keyword: 'rock horror' })).toEqual([]);
    expect(ids(sut, { keyword: 'roc' })).toEqual([]);
  });

  it('keyword matches names in every locale and not descriptions', () => {
    const e = anEvent({
      names: text('Spring Concert', { 'fr-fr': 'Concert de printemps' }),
      descriptions: text('jazz'),
    });
    const sut = indexOf(e);
    expect(ids(sut, { keyword: 'printemps' })).toEqual([e.id]);
    expect(ids(sut, { keyword: 'jazz' })).toEqual([]);
  });

  it('attractionId and venueId keep events of any of the given ids', () => {
    const a = anEvent({
      attractions: [{ ref: { $case: 'id', value: 'K1' }, names: text('Band'), resolvedId: '' }],
    });
    const b = anEvent({
      attractions: [{ ref: { $case: 'id', value: 'K2' }, names: text('Other'), resolvedId: '' }],
    });
    const v = anEvent({
      location: {
        $case: 'venue',
        value: { ref: { $case: 'id', value: 'ZV1' }, names: text('Hall'), resolvedId: '' },
      },
    });
    const sut = indexOf(a, b, v);
    expect(ids(sut, { attractionIds: ['K1'] })).toEqual([a.id]);
    expect(ids(sut, { attractionIds: ['K1', 'K2'] }).sort()).toEqual([a.id, b.id].sort());
    expect(ids(sut, { venueIds: ['ZV1'] })).toEqual([v.id]);
  });

  it('postalCode, city, countryCode and stateCode match the venue', () => {
    const ny = anEvent();
    const la = anEvent({
      location: {
        $case: 'place',
        value: place({
          names: text('Hollywood Bowl'),
          cityNames: text('Los Angeles'),
          postalCode: '90068',
          state: { stateCode: 'CA', names: text('California') },
          location: { latitude: 34.1122, longitude: -118.3391 },
        }),
      },
    });
    const to = anEvent({
      location: {
        $case: 'place',
        value: place({
          names: text('Massey Hall'),
          cityNames: text('Toronto'),
          postalCode: 'M5B 1T7',
          country: { countryCode: 'CA', names: text('Canada') },
          state: { stateCode: 'ON', names: text('Ontario') },
        }),
      },
    });
    const sut = indexOf(ny, la, to);
    expect(ids(sut, { postalCode: '90068' })).toEqual([la.id]);
    expect(ids(sut, { postalCode: 'm5b  1t7' })).toEqual([to.id]);
    expect(ids(sut, { city: 'los angeles' })).toEqual([la.id]);
    expect(ids(sut, { countryCodes: ['ca'] })).toEqual([to.id]);
    expect(ids(sut, { stateCodes: ['NY', 'CA'] }).sort()).toEqual([ny.id, la.id].sort());
  });

  it('latlong and radius keep events within the distance, in miles by default or in km', () => {
    const msg = anEvent(); // 40.7505,-73.9934
    const newark = anEvent({
      location: {
        $case: 'place',
        value: place({
          names: text('Prudential Center'),
          location: { latitude: 40.7335, longitude: -74.1711 },
        }),
      },
    }); // ~15 km west
    const boston = anEvent({
      location: {
        $case: 'place',
        value: place({
          names: text('TD Garden'),
          location: { latitude: 42.3662, longitude: -71.0621 },
        }),
      },
    }); // ~300 km
    const sut = indexOf(msg, newark, boston);
    const center = { latitude: 40.758, longitude: -73.9855 };
    expect(
      ids(sut, { latlong: center, radius: 5, unit: DistanceUnit.DISTANCE_UNIT_KILOMETERS }),
    ).toEqual([msg.id]);
    expect(
      ids(sut, { latlong: center, radius: 20, unit: DistanceUnit.DISTANCE_UNIT_KILOMETERS }).sort(),
    ).toEqual([msg.id, newark.id].sort());
    // 10 miles = 16 km reaches Newark; 10 km does not.
    expect(ids(sut, { latlong: center, radius: 10 }).sort()).toEqual([msg.id, newark.id].sort());
    expect(
      ids(sut, { latlong: center, radius: 10, unit: DistanceUnit.DISTANCE_UNIT_KILOMETERS }),
    ).toEqual([msg.id]);
    // default radius 50 miles: not Boston
    expect(ids(sut, { latlong: center }).sort()).toEqual([msg.id, newark.id].sort());
    expect(ids(sut, { latlong: center, radius: 250 }).sort()).toEqual(
      [msg.id, newark.id, boston.id].sort(),
    );
    // A radius with another index-backed filter: both must hold.
    const km20 = { latlong: center, radius: 20, unit: DistanceUnit.DISTANCE_UNIT_KILOMETERS };
    expect(ids(sut, { ...km20, keyword: 'spring' }).sort()).toEqual([msg.id, newark.id].sort());
    expect(ids(sut, { ...km20, keyword: 'autumn' })).toEqual([]);
  });

  it('source keeps events of the given sources (case-insensitive)', () => {
    const one = anEvent();
    const two = anEvent({
      source: { id: 'p2', name: 'publisher-two', publishingSource: undefined },
    });
    const sut = indexOf(one, two);
    expect(ids(sut, { sources: ['Publisher-Two'] })).toEqual([two.id]);
  });

  it('marketId and dmaId keep events of the market or of a market in the DMA', () => {
    const ny = anEvent({ marketIds: [35] });
    const la = anEvent({ marketIds: [27] });
    const sut = indexOf(ny, la);
    expect(ids(sut, { marketIds: [27] })).toEqual([la.id]);
    expect(ids(sut, { dmaId: '501' })).toEqual([ny.id]);
    expect(ids(sut, { dmaId: '803' })).toEqual([la.id]);
    expect(ids(sut, { dmaId: '999' })).toEqual([]);
  });

  it('start/end and onsale start/end date-times bound the start and the public on-sale start', () => {
    const may = anEvent();
    const june = anEvent({
      dates: {
        start: {
          localDate: '2030-06-01',
          localTime: '',
          dateTime: new Date('2030-06-01T20:00:00Z'),
          dateTbd: false,
          dateTba: false,
          timeTba: false,
          noSpecificTime: false,
        },
        access: undefined,
        end: undefined,
        timezone: 'UTC',
      },
      sales: {
        publicSale: {
          startDateTime: new Date('2029-01-01T00:00:00Z'),
          endDateTime: undefined,
          startTbd: false,
        },
      },
    });
    const sut = indexOf(may, june);
    expect(ids(sut, { startDateTime: new Date('2030-05-15T00:00:00Z') })).toEqual([june.id]);
    expect(ids(sut, { endDateTime: new Date('2030-05-15T00:00:00Z') })).toEqual([may.id]);
    expect(
      ids(sut, {
        startDateTime: new Date('2030-05-01T23:30:00Z'),
        endDateTime: new Date('2030-05-01T23:30:01Z'),
      }),
    ).toEqual([may.id]);
    expect(ids(sut, { onsaleStartDateTime: new Date('2028-12-31T00:00:00Z') })).toEqual([june.id]);
    expect(ids(sut, { onsaleEndDateTime: new Date('2028-12-31T00:00:00Z') })).toEqual([]);
  });

  it('includeTBA, includeTBD and includeTest: no by default, yes adds them, only keeps only them', () => {
    const dated = anEvent();
    const tba = anEvent({
      dates: {
        start: {
          localDate: '',
          localTime: '',
          dateTime: undefined,
          dateTba: true,
          dateTbd: false,
          timeTba: false,
          noSpecificTime: false,
        },
        access: undefined,
        end: undefined,
        timezone: '',
      },
    });
    const tbd = anEvent({
      dates: {
        start: {
          localDate: '',
          localTime: '',
          dateTime: undefined,
          dateTba: false,
          dateTbd: true,
          timeTba: false,
          noSpecificTime: false,
        },
        access: undefined,
        end: undefined,
        timezone: '',
      },
    });
    const test = anEvent({ test: true });
    const sut = indexOf(dated, tba, tbd, test);
    expect(ids(sut, {})).toEqual([dated.id]);
    expect(ids(sut, { includeTba: Inclusion.INCLUSION_YES }).sort()).toEqual(
      [dated.id, tba.id].sort(),
    );
    expect(ids(sut, { includeTba: Inclusion.INCLUSION_ONLY })).toEqual([tba.id]);
    expect(ids(sut, { includeTbd: Inclusion.INCLUSION_YES }).sort()).toEqual(
      [dated.id, tbd.id].sort(),
    );
    expect(ids(sut, { includeTbd: Inclusion.INCLUSION_ONLY })).toEqual([tbd.id]);
    expect(ids(sut, { includeTest: Inclusion.INCLUSION_YES }).sort()).toEqual(
      [dated.id, test.id].sort(),
    );
    expect(ids(sut, { includeTest: Inclusion.INCLUSION_ONLY })).toEqual([test.id]);
    expect(ids(sut, { includeTest: Inclusion.INCLUSION_NO })).toEqual([dated.id]);
  });

  it('classificationName and classificationId match segment, genre or sub-genre', () => {
    const rock = anEvent({ classifications: [classification(['KZ1', 'Music'], ['KG1', 'Rock'])] });
    const hockey = anEvent({
      classifications: [classification(['KZ2', 'Sports'], ['KG2', 'Hockey'])],
    });
    const sut = indexOf(rock, hockey);
    expect(ids(sut, { classificationNames: ['music'] })).toEqual([rock.id]);
    expect(ids(sut, { classificationNames: ['Hockey'] })).toEqual([hockey.id]);
    expect(ids(sut, { classificationIds: ['KG1'] })).toEqual([rock.id]);
    expect(ids(sut, { classificationIds: ['KZ2', 'KG1'] }).sort()).toEqual(
      [rock.id, hockey.id].sort(),
    );
  });

  it('never shows inactive events or events outside their public-visibility window', () => {
    const shown = anEvent();
    const inactive = anEvent({ active: false });
    const hidden = anEvent({
      publicVisibility: { visible: false, startDateTime: undefined, endDateTime: undefined },
    });
    const later = anEvent({
      publicVisibility: {
        visible: true,
        startDateTime: new Date('2026-02-01T00:00:00Z'),
        endDateTime: undefined,
      },
    });
    const over = anEvent({
      publicVisibility: {
        visible: true,
        startDateTime: undefined,
        endDateTime: new Date('2025-12-31T00:00:00Z'),
      },
    });
    const open = anEvent({
      publicVisibility: {
        visible: true,
        startDateTime: new Date('2025-01-01T00:00:00Z'),
        endDateTime: new Date('2027-01-01T00:00:00Z'),
      },
    });
    const sut = indexOf(shown, inactive, hidden, later, over, open);
    expect(ids(sut, { includeTest: Inclusion.INCLUSION_YES }).sort()).toEqual(
      [shown.id, open.id].sort(),
    );
  });

  it('sorts by date or name in both directions; relevance puts exact names first', () => {
    const b = anEvent({
      names: text('Beta'),
      dates: {
        start: {
          localDate: '',
          localTime: '',
          dateTime: new Date('2030-01-03T00:00:00Z'),
          dateTba: false,
          dateTbd: false,
          timeTba: false,
          noSpecificTime: false,
        },
        access: undefined,
        end: undefined,
        timezone: '',
      },
    });
    const a = anEvent({
      names: text('Alpha Beta Gamma'),
      dates: {
        start: {
          localDate: '',
          localTime: '',
          dateTime: new Date('2030-01-02T00:00:00Z'),
          dateTba: false,
          dateTbd: false,
          timeTba: false,
          noSpecificTime: false,
        },
        access: undefined,
        end: undefined,
        timezone: '',
      },
    });
    const c = anEvent({
      names: text('Charlie'),
      dates: {
        start: {
          localDate: '',
          localTime: '',
          dateTime: new Date('2030-01-01T00:00:00Z'),
          dateTba: false,
          dateTbd: false,
          timeTba: false,
          noSpecificTime: false,
        },
        access: undefined,
        end: undefined,
        timezone: '',
      },
    });
    const sut = indexOf(a, b, c);
    expect(ids(sut, { sort: EventSort.EVENT_SORT_DATE_ASC })).toEqual([c.id, a.id, b.id]);
    expect(ids(sut, { sort: EventSort.EVENT_SORT_DATE_DESC })).toEqual([b.id, a.id, c.id]);
    expect(ids(sut, { sort: EventSort.EVENT_SORT_NAME_ASC })).toEqual([a.id, b.id, c.id]);
    expect(ids(sut, { sort: EventSort.EVENT_SORT_NAME_DESC })).toEqual([c.id, b.id, a.id]);
    expect(ids(sut, {})).toEqual([c.id, a.id, b.id]);
    expect(ids(sut, { keyword: 'beta' })).toEqual([b.id, a.id]);
    expect(ids(sut, { keyword: 'beta', sort: EventSort.EVENT_SORT_DATE_ASC })).toEqual([
      a.id,
      b.id,
    ]);
  });

  it('pages with offset and limit, reports the total, and refuses a size above 500', () => {
    const events = Array.from({ length: 25 }, (_, i) =>
      anEvent({ names: text(`Show ${String(i).padStart(2, '0')}`) }),
    );
    const sut = indexOf(...events);
    const first = sut.searchEvents(query({ sort: EventSort.EVENT_SORT_NAME_ASC }), now);
    expect(first.items).toHaveLength(20);
    expect(first.total).toBe(25);
    const second = sut.searchEvents(
      query({ sort: EventSort.EVENT_SORT_NAME_ASC, page: { offset: 20, limit: 20 } }),
      now,
    );
    expect(second.items.map((h) => h.event.id)).toEqual(events.slice(20).map((e) => e.id));
    expect(() => sut.searchEvents(query({ page: { offset: 0, limit: 501 } }), now)).toThrow(
      /between 1 and 500/,
    );
  });

  it('gives the same answers on the wide path (over 4096 candidates) as on the narrow one', () => {
    const many = Array.from({ length: 5000 }, (_, i) =>
      anEvent({
        names: text(i % 2 ? 'Odd Show' : 'Even Show'),
        dates: {
          start: {
            localDate: '',
            localTime: '',
            dateTime: new Date(Date.UTC(2030, 0, 1) + i * 60_000),
            dateTba: false,
            dateTbd: false,
            timeTba: false,
            noSpecificTime: false,
          },
          access: undefined,
          end: undefined,
          timezone: '',
        },
      }),
    );
    const sut = indexOf(...many);
    const page = sut.searchEvents(
      query({
        keyword: 'show',
        sort: EventSort.EVENT_SORT_DATE_DESC,
        page: { offset: 10, limit: 3 },
      }),
      now,
    );
    expect(page.total).toBe(5000);
    expect(page.items.map((h) => h.event.id)).toEqual([
      many[4989]!.id,
      many[4988]!.id,
      many[4987]!.id,
    ]);
    const odd = sut.searchEvents(
      query({
        keyword: 'odd show',
        sort: EventSort.EVENT_SORT_DATE_ASC,
        page: { offset: 0, limit: 2 },
      }),
      now,
    );
    expect(odd.total).toBe(2500);
    expect(odd.items.map((h) => h.event.id)).toEqual([many[1]!.id, many[3]!.id]);
  });

  it('bounds a date range in either date order, undated events excluded, other filters still applied', () => {
    const at = (iso: string, names = text('Dated')) =>
      anEvent({
        names,
        dates: {
          start: {
            localDate: '',
            localTime: '',
            dateTime: new Date(iso),
            dateTba: false,
            dateTbd: false,
            timeTba: false,
            noSpecificTime: false,
          },
          access: undefined,
          end: undefined,
          timezone: '',
        },
      });
    const jan = at('2030-01-15T00:00:00Z');
    const feb = at('2030-02-15T00:00:00Z');
    const febTest = { ...at('2030-02-16T00:00:00Z'), test: true };
    const mar = at('2030-03-15T00:00:00Z');
    const apr = at('2030-04-15T00:00:00Z');
    const undated = anEvent({
      dates: {
        start: {
          localDate: '',
          localTime: '',
          dateTime: undefined,
          dateTba: true,
          dateTbd: false,
          timeTba: false,
          noSpecificTime: false,
        },
        access: undefined,
        end: undefined,
        timezone: '',
      },
    });
    const sut = indexOf(apr, jan, mar, undated, feb, febTest);
    const range = {
      startDateTime: new Date('2030-02-01T00:00:00Z'),
      endDateTime: new Date('2030-04-01T00:00:00Z'),
      includeTba: Inclusion.INCLUSION_YES,
    };
    expect(ids(sut, { ...range, sort: EventSort.EVENT_SORT_DATE_ASC })).toEqual([feb.id, mar.id]);
    expect(ids(sut, { ...range, sort: EventSort.EVENT_SORT_DATE_DESC })).toEqual([mar.id, feb.id]);
    expect(ids(sut, { ...range })).toEqual([feb.id, mar.id]);
    expect(
      ids(sut, { startDateTime: range.startDateTime, sort: EventSort.EVENT_SORT_DATE_DESC }),
    ).toEqual([apr.id, mar.id, feb.id]);
    expect(ids(sut, { endDateTime: range.startDateTime })).toEqual([jan.id]);
    const second = sut.searchEvents(
      query({ ...range, includeTest: Inclusion.INCLUSION_YES, page: { offset: 1, limit: 1 } }),
      now,
    );
    expect(second.total).toBe(3);
    expect(second.items.map((h) => h.event.id)).toEqual([febTest.id]);
  });

  it('keeps the total of an unfiltered listing right across pages and changes', () => {
    const sut = indexOf(...Array.from({ length: 30 }, () => anEvent()));
    const listing = (offset: number) =>
      sut.searchEvents(query({ page: { offset, limit: 20 } }), now);
    expect(listing(0).total).toBe(30);
    expect(listing(20).items).toHaveLength(10);
    expect(listing(0).total).toBe(30);
    sut.upsert(anEvent());
    expect(listing(0).total).toBe(31);
    expect(sut.searchEvents(query({ includeTest: Inclusion.INCLUSION_ONLY }), now).total).toBe(0);
  });

  it('forgets a removed event everywhere', () => {
    const e = anEvent({ names: text('Gone Show') });
    const sut = indexOf(e);
    sut.remove(e.id);
    expect(ids(sut, { keyword: 'gone' })).toEqual([]);
    expect(ids(sut, { postalCode: '10001' })).toEqual([]);
    expect(sut.getEvent(e.id, now)).toBeUndefined();
  });
});

describe('CatalogIndex venues and attractions', () => {
  it('resolves an inline place to one venue shared by the events at that place', () => {
    const one = anEvent();
    const two = anEvent();
    const sut = indexOf(one, two);
    const hit = sut.getEvent(one.id, now)!;
    expect(hit.venue?.id).toMatch(/^Z/);
    expect(sut.getEvent(two.id, now)!.venue?.id).toBe(hit.venue?.id);
    expect(hit.event.location).toMatchObject({
      kind: 'venue',
      venue: { resolvedId: hit.venue!.id },
    });
    expect(hit.venue).toMatchObject({
      postalCode: '10001',
      timezone: 'America/New_York',
      marketIds: [35],
      upcomingEvents: 2,
    });
  });

  it('hands encoded hits the venue and attraction bytes with their counts as they are now', () => {
    const one = anEvent({ names: text('Encoded Night') });
    const sut = indexOf(one);
    const first = sut.searchEventsEncoded(query({ keyword: 'encoded' }), now).items[0]!;
    const venueOf = (hit: typeof first) => DiscoveryVenue.decode(hit.venue!.encoded);
    const decoded = sut.searchEvents(query({ keyword: 'encoded' }), now).items[0]!;
    expect(venueOf(first)).toEqual(venueMessageOf(decoded.venue!));
    expect(first.attractions.map((a) => DiscoveryAttraction.decode(a.encoded))).toEqual(
      decoded.attractions.map(attractionMessageOf),
    );
    expect(first.attractions.map((a) => a.id)).toEqual(decoded.attractions.map((a) => a.id));
    expect(venueOf(first).upcomingEvents).toBe(1);
    // Asked again unchanged: the same bytes, not encoded again.
    const again = sut.searchEventsEncoded(query({ keyword: 'encoded' }), now).items[0]!;
    expect(again.venue!.encoded).toBe(first.venue!.encoded);

    sut.upsert(anEvent({ names: text('Another Night') }));
    const later = sut.searchEventsEncoded(query({ keyword: 'encoded' }), now).items[0]!;
    expect(venueOf(later).upcomingEvents).toBe(2);
    // Once the clock passes both start dates, nothing is upcoming any more.
    const afterwards = new Date('2031-01-01T00:00:00Z');
    const past = sut.searchEventsEncoded(query({ keyword: 'encoded' }), afterwards).items;
    expect(past).toHaveLength(1);
    expect(venueOf(past[0]!).upcomingEvents).toBe(0);
  });

  it('keeps a venue count only for as long as it holds: until a start, a visibility window opening or closing', () => {
    const at = (iso: string) => new Date(iso);
    const startingAt = (iso: string) =>
      EventDates.fromPartial({ start: { dateTime: at(iso) }, timezone: 'UTC' });
    const early = anEvent({ dates: startingAt('2026-03-01T00:00:00Z') });
    const late = anEvent({ dates: startingAt('2026-09-01T00:00:00Z') });
    const shownFromApril = anEvent({
      dates: startingAt('2026-12-01T00:00:00Z'),
      publicVisibility: {
        visible: true,
        startDateTime: at('2026-04-01T00:00:00Z'),
        endDateTime: at('2026-10-01T00:00:00Z'),
      },
    });
    const sut = indexOf(early, late, shownFromApril);
    const venueId = sut.getEvent(early.id, now)!.venue!.id;
    const count = (when: string) => sut.getVenue(venueId, at(when))!.upcomingEvents;

    expect(count('2026-01-01T00:00:00Z')).toBe(2);
    expect(count('2026-03-01T00:00:00Z')).toBe(2); // starting this very moment: still upcoming
    expect(count('2026-03-01T00:00:00.001Z')).toBe(1);
    expect(count('2026-04-01T00:00:00Z')).toBe(2); // the window opened
    expect(count('2026-09-15T00:00:00Z')).toBe(1); // late has started
    expect(count('2026-10-01T00:00:00Z')).toBe(0); // the window closed
    expect(count('2026-01-01T00:00:00Z')).toBe(2); // an earlier clock is counted again
    sut.remove(late.id);
    expect(count('2026-01-01T00:00:00Z')).toBe(1);
  });

  it('embeds the details of a venue known to discovery when an event references its id', () => {
    const described = anEvent();
    const sut = indexOf(described);
    const venueId = sut.getEvent(described.id, now)!.venue!.id;
    const byRef = anEvent({
      location: {
        $case: 'venue',
        value: { ref: { $case: 'id', value: venueId }, names: undefined, resolvedId: '' },
      },
    });
    sut.upsert(byRef);
    expect(sut.getEvent(byRef.id, now)!.venue).toMatchObject({ id: venueId, postalCode: '10001' });
  });

  it('gives a source reference a stable id of its own', () => {
    const ref = () =>
      anEvent({
        location: {
          $case: 'venue',
          value: {
            ref: { $case: 'source', value: { id: 'v-9', name: 'pub' } },
            names: text('Club'),
            resolvedId: '',
          },
        },
      });
    const sut = indexOf(ref(), ref());
    const page = sut.searchVenues(venueQuery({ keyword: 'club' }), now);
    expect(page.total).toBe(1);
    expect(page.items[0]!.upcomingEvents).toBe(2);
  });

  it('lists attractions by keyword with their event counts and drops them with their last event', () => {
    const e = anEvent({
      attractions: [
        {
          ref: { $case: 'source', value: { id: 'a1', name: 'pub' } },
          names: text('The Rolling Stones'),
          resolvedId: '',
        },
      ],
    });
    const sut = indexOf(e);
    const q = attractionQuery({ keyword: 'rolling' });
    expect(sut.searchAttractions(q, now).items.map((a) => a.upcomingEvents)).toEqual([1]);
    sut.remove(e.id);
    expect(sut.searchAttractions(q, now).total).toBe(0);
  });
});

describe('CatalogIndex international filters', () => {
  const priced = (min: number, max: number) => [
    {
      type: 1 as never,
      min: { amountMinor: min * 100, currency: 'EUR' },
      max: { amountMinor: max * 100, currency: 'EUR' },
    },
  ];
  const berlin = (name: string) =>
    place({
      names: text(name),
      cityNames: text('Berlin'),
      postalCode: '10243',
      country: { countryCode: 'DE', names: text('Germany') },
      state: undefined,
      location: { latitude: 52.5051, longitude: 13.4436 },
    });

  it('eventIds, promoterIds and nameContains (any word) select events', () => {
    const a = anEvent({
      names: text('Open Air'),
      promoter: { id: 'PR1', names: undefined, descriptions: undefined },
    });
    const b = anEvent({ names: text('Jazz Brunch') });
    const sut = indexOf(a, b);
    expect(ids(sut, { eventIds: [b.id] })).toEqual([b.id]);
    expect(ids(sut, { promoterIds: ['PR1'] })).toEqual([a.id]);
    expect(ids(sut, { nameContains: 'jazz air' }).sort()).toEqual([a.id, b.id].sort());
    expect(ids(sut, { nameContains: 'brunch' })).toEqual([b.id]);
  });

  it('offsale dates, price bounds, cancelled, rescheduled, seats available and external', () => {
    const cheap = anEvent({
      priceRanges: priced(10, 20),
      sales: {
        publicSale: {
          startDateTime: undefined,
          endDateTime: new Date('2030-04-01T00:00:00Z'),
          startTbd: false,
        },
      },
    });
    const dear = anEvent({
      priceRanges: priced(100, 200),
      status: EventStatus.EVENT_STATUS_OFFSALE,
    });
    const cancelled = anEvent({ status: EventStatus.EVENT_STATUS_CANCELLED });
    const moved = anEvent({ status: EventStatus.EVENT_STATUS_RESCHEDULED });
    const sold = anEvent({
      ticketing: {
        manifestId: 'm',
        maximumTicketsQuantity: 0,
        currency: 'EUR',
        priceLevels: [],
        priceTypes: [],
        pricePeriods: [],
        secureEntryEnabled: false,
      },
    });
    const sut = indexOf(cheap, dear, cancelled, moved, sold);
    expect(
      ids(sut, {
        offsaleStartDateTime: new Date('2030-03-01T00:00:00Z'),
        offsaleEndDateTime: new Date('2030-05-01T00:00:00Z'),
      }),
    ).toEqual([cheap.id]);
    expect(ids(sut, { minPrice: 50 })).toEqual([dear.id]);
    expect(ids(sut, { maxPrice: 50 })).toEqual([cheap.id]);
    expect(ids(sut, { minPrice: 15, maxPrice: 150 }).sort()).toEqual([cheap.id, dear.id].sort());
    expect(ids(sut, { includeCancelled: Inclusion.INCLUSION_ONLY }).sort()).toEqual(
      [cancelled.id, moved.id].sort(),
    );
    expect(ids(sut, { includeCancelled: Inclusion.INCLUSION_NO })).not.toContain(cancelled.id);
    expect(ids(sut, { includeRescheduled: Inclusion.INCLUSION_ONLY })).toEqual([moved.id]);
    expect(ids(sut, { includeRescheduled: Inclusion.INCLUSION_NO })).not.toContain(moved.id);
    expect(ids(sut, { seatsAvailable: true })).not.toContain(dear.id);
    expect(ids(sut, { seatsAvailable: true })).not.toContain(cancelled.id);
    expect(ids(sut, { excludeExternal: true })).toEqual([sold.id]);
  });

  it('sorts by on-sale date and by distance, and refuses a distance sort without latlong', () => {
    const onsale = (iso: string) => ({
      publicSale: { startDateTime: new Date(iso), endDateTime: undefined, startTbd: false },
    });
    const near = anEvent({ sales: onsale('2029-03-01T00:00:00Z') });
    const far = anEvent({
      location: { $case: 'place', value: berlin('Arena') },
      sales: onsale('2029-01-01T00:00:00Z'),
    });
    const sut = indexOf(near, far);
    expect(ids(sut, { sort: EventSort.EVENT_SORT_ONSALE_ASC })).toEqual([far.id, near.id]);
    expect(ids(sut, { sort: EventSort.EVENT_SORT_ONSALE_DESC })).toEqual([near.id, far.id]);
    const center = { latitude: 40.7, longitude: -74 };
    expect(
      ids(sut, { latlong: center, radius: 10000, sort: EventSort.EVENT_SORT_DISTANCE_ASC }),
    ).toEqual([near.id, far.id]);
    expect(
      ids(sut, { latlong: center, radius: 10000, sort: EventSort.EVENT_SORT_DISTANCE_DESC }),
    ).toEqual([far.id, near.id]);
    expect(() => ids(sut, { sort: EventSort.EVENT_SORT_DISTANCE_ASC })).toThrow(/latlong/);
  });

  it('venue search: names (any, partial) and venues with platform-sold events only', () => {
    const sold = anEvent({
      location: { $case: 'place', value: berlin('Columbiahalle') },
      ticketing: {
        manifestId: 'm',
        maximumTicketsQuantity: 0,
        currency: 'EUR',
        priceLevels: [],
        priceTypes: [],
        pricePeriods: [],
        secureEntryEnabled: false,
      },
    });
    const other = anEvent({ location: { $case: 'place', value: berlin('Astra Kulturhaus') } });
    const sut = indexOf(sold, other);
    const names = (q: Partial<SearchVenuesRequest>) =>
      sut.searchVenues(venueQuery(q), now).items.map((v) => v.names?.values['en-us']);
    expect(names({ nameAny: ['columbia', 'kultur'] })).toEqual([
      'Astra Kulturhaus',
      'Columbiahalle',
    ]);
    expect(names({ nameAny: ['columbia'] })).toEqual(['Columbiahalle']);
    expect(names({ excludeExternal: true })).toEqual(['Columbiahalle']);
    expect(names({ countryCodes: ['DE'], sort: NameSort.NAME_SORT_NAME_DESC })).toEqual([
      'Columbiahalle',
      'Astra Kulturhaus',
    ]);
  });

  it('attraction search by country of their events, part of the name and fuzzy query; similar attractions', () => {
    const attr = (id: string, name: string) => ({
      ref: { $case: 'id' as const, value: id },
      names: text(name),
      resolvedId: '',
    });
    const rock = [classification(['KZ1', 'Music'], ['KG1', 'Rock'])];
    const inBerlin = anEvent({
      location: { $case: 'place', value: berlin('Arena') },
      classifications: rock,
      attractions: [attr('A1', 'Die Toten Hosen')],
    });
    const inNy = anEvent({ classifications: rock, attractions: [attr('A2', 'The Strokes')] });
    const jazz = anEvent({
      classifications: [classification(['KZ1', 'Music'], ['KG9', 'Jazz'])],
      attractions: [attr('A3', 'Kamasi Washington')],
    });
    const sut = indexOf(inBerlin, inNy, jazz);
    const found = (q: Partial<SearchAttractionsRequest>) =>
      sut.searchAttractions(attractionQuery(q), now).items.map((a) => a.id);
    expect(found({ countryCodes: ['DE'] })).toEqual(['A1']);
    expect(found({ nameContains: 'toten' })).toEqual(['A1']);
    expect(found({ fuzzy: 'strokse' })).toEqual([]);
    expect(found({ fuzzy: 'stroke' })).toEqual(['A2']);
    expect(found({ fuzzy: 'kamasy' })).toEqual(['A3']);
    expect(found({ classificationIds: ['KG9'] })).toEqual(['A3']);
    expect(
      sut
        .similarAttractions('A1', { hasEvents: true, countryCodes: [], limit: 10 }, now)!
        .map((a) => a.id),
    ).toEqual(['A2']);
    expect(
      sut.similarAttractions('A1', { hasEvents: false, countryCodes: ['DE'], limit: 10 }, now),
    ).toEqual([]);
    expect(
      sut.similarAttractions('nope', { hasEvents: false, countryCodes: [], limit: 10 }, now),
    ).toBeUndefined();
  });
});

describe('CatalogIndex classifications', () => {
  const full = (seg: [string, string], genre: [string, string], sub?: [string, string]) => ({
    ...classification(seg, genre),
    subGenre: sub && { id: sub[0], names: text(sub[1]) },
  });

  it('builds segments → genres → sub-genres from visible events, searchable by name words', () => {
    const sut = indexOf(
      anEvent({ classifications: [full(['KZ1', 'Music'], ['KG1', 'Rock'], ['KS1', 'Punk Rock'])] }),
      anEvent({ classifications: [full(['KZ1', 'Music'], ['KG2', 'Jazz'])] }),
      anEvent({ classifications: [full(['KZ2', 'Sports'], ['KG3', 'Hockey'])] }),
      anEvent({ active: false, classifications: [full(['KZ3', 'Hidden'], ['KG4', 'Secret'])] }),
    );
    const all = sut.searchClassifications(classificationQuery({}), now);
    expect(
      all.items.map((s) => [s.segment?.id, s.eventCount, s.genres.map((g) => g.genre?.id)]),
    ).toEqual([
      ['KZ1', 2, ['KG2', 'KG1']],
      ['KZ2', 1, ['KG3']],
    ]);
    expect(all.items[0]!.genres[1]!.subGenres.map((x) => x.id)).toEqual(['KS1']);
    const punk = sut.searchClassifications(classificationQuery({ keyword: 'punk' }), now);
    expect(punk.items.map((s) => s.segment?.id)).toEqual(['KZ1']);
    expect(sut.getClassification('KS1', now)).toMatchObject({
      level: 'subgenre',
      segment: { segment: { id: 'KZ1' } },
    });
    expect(sut.getClassification('KG3', now)?.level).toBe('genre');
    expect(sut.getClassification('KZ2', now)?.level).toBe('segment');
    expect(sut.getClassification('KZ3', now)).toBeUndefined();
  });
});

describe('CatalogIndex international discovery gaps', () => {
  const at = (city: string, countryCode: string, name = `Hall in ${city}`) => ({
    $case: 'place' as const,
    value: place({
      names: text(name),
      cityNames: text(city),
      country: { countryCode, names: undefined },
      state: undefined,
    }),
  });
  const band = (id: string) => ({
    ref: { $case: 'id' as const, value: id },
    names: text(id),
    resolvedId: '',
  });
  const range = (type: PriceRangeType, min: number, max: number) => ({
    type,
    min: { amountMinor: min * 100, currency: 'EUR' },
    max: { amountMinor: max * 100, currency: 'EUR' },
  });

  it('city ids: stable per country and folded name, 48 bits, shown on the venue, never 0', () => {
    expect(cityId('DE', 'München')).toBe(cityId('de', '  MUNCHEN '));
    expect(cityId('DE', 'Frankfurt am Main')).toBe(cityId('DE', 'frankfurt  am  main'));
    expect(cityId('DE', 'Paris')).not.toBe(cityId('FR', 'Paris'));
    expect(cityId('DE', '')).toBe(0);
    for (const name of ['Berlin', 'Oslo', 'Zürich', 'Kraków']) {
      const id = cityId('XX', name);
      expect(Number.isSafeInteger(id) && id > 0 && id < 2 ** CITY_ID_BITS).toBe(true);
    }
    const e = anEvent({ location: at('Oslo', 'NO') });
    const hit = indexOf(e).searchEvents(query({ eventIds: [e.id] }), now).items[0]!;
    expect(hit.venue?.cityId).toBe(cityId('NO', 'Oslo'));
  });

  it('cityIds keep events and venues of any of the cities, in any locale of the city name', () => {
    const oslo = anEvent({ location: at('Oslo', 'NO') });
    const bergen = anEvent({ location: at('Bergen', 'NO') });
    const munich = anEvent({
      location: {
        $case: 'place',
        value: place({
          names: text('Olympiahalle'),
          cityNames: text('Munich', { 'de-de': 'München' }),
          country: { countryCode: 'DE', names: undefined },
        }),
      },
    });
    const sut = indexOf(oslo, bergen, munich);
    expect(ids(sut, { cityIds: [cityId('NO', 'Oslo')] })).toEqual([oslo.id]);
    expect(ids(sut, { cityIds: [cityId('NO', 'Oslo'), cityId('NO', 'Bergen')] }).sort()).toEqual(
      [oslo.id, bergen.id].sort(),
    );
    expect(ids(sut, { cityIds: [cityId('DE', 'München')] })).toEqual([munich.id]);
    expect(ids(sut, { cityIds: [cityId('SE', 'Oslo')] })).toEqual([]);
    const venues = (cityIds: number[]) =>
      sut.searchVenues(venueQuery({ cityIds }), now).items.map((v) => v.names?.values['en-us']);
    expect(venues([cityId('NO', 'Bergen')])).toEqual(['Hall in Bergen']);
    expect(venues([cityId('NO', 'Bergen'), cityId('DE', 'Munich')])).toEqual([
      'Hall in Bergen',
      'Olympiahalle',
    ]);
    expect(venues([1])).toEqual([]);
  });

  it('sorts by popularity: events of the attraction with the most events first (or last), then date', () => {
    const start = (iso: string) => ({
      start: {
        localDate: iso.slice(0, 10),
        localTime: '',
        dateTime: new Date(iso),
        dateTbd: false,
        dateTba: false,
        timeTba: false,
        noSpecificTime: false,
      },
      access: undefined,
      end: undefined,
      timezone: 'UTC',
    });
    const star1 = anEvent({ attractions: [band('KSTAR')], dates: start('2030-06-01T20:00:00Z') });
    const star2 = anEvent({ attractions: [band('KSTAR')], dates: start('2030-07-01T20:00:00Z') });
    const star3 = anEvent({ attractions: [band('KSTAR')], dates: start('2030-08-01T20:00:00Z') });
    // The niche act's only event shares the bill with the star: its popularity is the star's.
    const shared = anEvent({
      attractions: [band('KNICHE'), band('KSTAR')],
      dates: start('2030-09-01T20:00:00Z'),
    });
    const solo = anEvent({ attractions: [band('KSOLO')], dates: start('2030-01-01T20:00:00Z') });
    const none = anEvent({ dates: start('2029-01-01T20:00:00Z') });
    const hidden = anEvent({ attractions: [band('KSOLO')], active: false });
    const sut = indexOf(star1, star2, star3, shared, solo, none, hidden);
    expect(ids(sut, { sort: EventSort.EVENT_SORT_POPULARITY_DESC })).toEqual([
      star1.id,
      star2.id,
      star3.id,
      shared.id,
      solo.id,
      none.id,
    ]);
    expect(ids(sut, { sort: EventSort.EVENT_SORT_POPULARITY_ASC })).toEqual([
      none.id,
      solo.id,
      star1.id,
      star2.id,
      star3.id,
      shared.id,
    ]);
    // The narrow path (an index selects candidates) orders the same way.
    expect(
      ids(sut, {
        eventIds: [solo.id, star2.id, none.id],
        sort: EventSort.EVENT_SORT_POPULARITY_DESC,
      }),
    ).toEqual([star2.id, solo.id, none.id]);
    // A change of popularity reorders (the prebuilt order is rebuilt).
    sut.upsert(anEvent({ attractions: [band('KSOLO')] }));
    sut.upsert(anEvent({ attractions: [band('KSOLO')] }));
    sut.upsert(anEvent({ attractions: [band('KSOLO')] }));
    expect(ids(sut, { sort: EventSort.EVENT_SORT_POPULARITY_DESC })[0]).toBe(solo.id);
    sut.remove(star1.id);
    expect(ids(sut, { sort: EventSort.EVENT_SORT_POPULARITY_DESC })[0]).toBe(solo.id);
  });

  it('price bounds compare including fees by default and excluding fees with priceExclFees', () => {
    const STD = PriceRangeType.PRICE_RANGE_TYPE_STANDARD;
    const FEES = PriceRangeType.PRICE_RANGE_TYPE_STANDARD_INCLUDING_FEES;
    // Face value 40..90, 52..110 with fees.
    const withFees = anEvent({ priceRanges: [range(STD, 40, 90), range(FEES, 52, 110)] });
    // Fees unknown: including bounds are the standard ones.
    const faceOnly = anEvent({ priceRanges: [range(STD, 20, 30)] });
    const sut = indexOf(withFees, faceOnly);
    expect(ids(sut, { minPrice: 100 })).toEqual([withFees.id]);
    expect(ids(sut, { minPrice: 100, priceExclFees: true })).toEqual([]);
    expect(ids(sut, { maxPrice: 45, priceExclFees: true }).sort()).toEqual(
      [withFees.id, faceOnly.id].sort(),
    );
    expect(ids(sut, { maxPrice: 45 })).toEqual([faceOnly.id]);
    expect(ids(sut, { minPrice: 25, maxPrice: 30 })).toEqual([faceOnly.id]);
  });

  it('excludePackages (is_not_package) drops packages', () => {
    const pkg = anEvent({ package: true });
    const plain = anEvent();
    const sut = indexOf(pkg, plain);
    expect(ids(sut, {}).sort()).toEqual([pkg.id, plain.id].sort());
    expect(ids(sut, { excludePackages: true })).toEqual([plain.id]);
  });
});
