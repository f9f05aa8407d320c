import { describe, expect, it } from 'vitest';
import { EventSort, Inclusion } from '@marquee/proto/catalog/v1';
import { DistanceUnit } from '@marquee/proto/common/v1';
import { anEvent, classification, place, query, text } from '../../test/builders.js';
import { CatalogIndex } from './catalog-index.js';

const now = new Date('2026-01-01T00:00:00Z');

function indexOf(...events: ReturnType<typeof anEvent>[]) {
  const sut = new CatalogIndex();
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
      $case: 'venue',
      value: { resolvedId: hit.venue!.id },
    });
    expect(hit.venue).toMatchObject({
      postalCode: '10001',
      timezone: 'America/New_York',
      marketIds: [35],
      upcomingEvents: 2,
    });
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
    const page = sut.searchVenues(
      {
        keyword: 'club',
        ids: [],
        countryCodes: [],
        stateCodes: [],
        city: '',
        postalCode: '',
        latlong: undefined,
        radius: 0,
        unit: DistanceUnit.DISTANCE_UNIT_UNSPECIFIED,
        marketIds: [],
        includeTest: Inclusion.INCLUSION_UNSPECIFIED,
        sort: 0 as never,
        page: undefined,
      },
      now,
    );
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
    const q = {
      keyword: 'rolling',
      ids: [],
      classificationNames: [],
      classificationIds: [],
      hasEvents: false,
      includeTest: Inclusion.INCLUSION_UNSPECIFIED,
      sort: 0 as never,
      page: undefined,
    };
    expect(sut.searchAttractions(q, now).items.map((a) => a.upcomingEvents)).toEqual([1]);
    sut.remove(e.id);
    expect(sut.searchAttractions(q, now).total).toBe(0);
  });
});
