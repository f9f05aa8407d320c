import { describe, expect, it } from 'vitest';
import { milesToKm } from '@marquee/geo';
import {
  FLAG_HIDDEN,
  FLAG_SOLD_OUT,
  FLAG_TBA,
  FLAG_TBD,
  FLAG_TEST,
} from '../../src/domain/search/column-store.js';
import { planEventSearch } from '../../src/domain/search/planner.js';
import { eventQuery, InvalidQueryError } from '../../src/domain/search/query.js';

const chicago = { latitude: 41.88, longitude: -87.63 };

describe('planEventSearch: strategy', () => {
  it('walks the date order for a search that nothing narrows', () => {
    const plan = planEventSearch(eventQuery());
    expect(plan).toMatchObject({
      strategy: 'walk',
      order: 'date-asc',
      relevance: false,
      lists: [],
      filters: [],
      offset: 0,
      limit: 20,
    });
  });

  it('narrows by posting lists: each keyword word its own list, relevance without a sort', () => {
    const plan = planEventSearch(eventQuery({ keyword: 'Rolling Stones rolling' }));
    expect(plan.strategy).toBe('candidates');
    expect(plan.lists).toEqual([
      { kind: 'postings', index: 'word', keys: ['rolling'] },
      { kind: 'postings', index: 'word', keys: ['stones'] },
    ]);
    expect(plan.relevance).toBe(true);
    expect(plan.order).toBe('date-asc');
    // With a sort, the order is the sort's and relevance is off.
    const sorted = planEventSearch(eventQuery({ keyword: 'rolling', sort: 'name-desc' }));
    expect(sorted).toMatchObject({ relevance: false, order: 'name-desc' });
  });

  it('unites the keys of one filter in one list, and keys them as the index does', () => {
    const plan = planEventSearch(
      eventQuery({
        nameContains: 'jazz blues',
        classificationIds: ['KZFzniwnSyZfZ7v7nJ'],
        classificationNames: ['  Hip-Hop / Rap '],
        marketIds: [35, 7],
        dmaId: 602,
        eventIds: ['E1'],
        cityIds: [12],
      }),
    );
    expect(plan.lists).toEqual([
      { kind: 'postings', index: 'classificationId', keys: ['kzfzniwnsyzfz7v7nj'] },
      { kind: 'postings', index: 'classificationName', keys: ['hip hop rap'] },
      { kind: 'postings', index: 'market', keys: ['m35', 'm7'] },
      { kind: 'postings', index: 'market', keys: ['d602'] },
      { kind: 'events', ids: ['E1'] },
      { kind: 'postings', index: 'word', keys: ['jazz', 'blues'] },
      { kind: 'cities', cityIds: [12] },
    ]);
  });

  it('takes a radius as candidates, in kilometres, 50 miles by default', () => {
    const plan = planEventSearch(
      eventQuery({ near: { center: chicago, radius: 0, unit: 'miles' } }),
    );
    expect(plan.strategy).toBe('candidates');
    expect(plan.near).toEqual({ center: chicago, km: milesToKm(50) });
    const km = planEventSearch(eventQuery({ near: { center: chicago, radius: 10, unit: 'km' } }));
    expect(km.near!.km).toBe(10);
  });

  it('sorts by distance only around a centre, with date order behind it', () => {
    expect(() => planEventSearch(eventQuery({ sort: 'distance-asc' }))).toThrow(InvalidQueryError);
    const near = { center: chicago, radius: 25, unit: 'miles' as const };
    expect(planEventSearch(eventQuery({ near, sort: 'distance-desc' }))).toMatchObject({
      strategy: 'distance',
      distance: -1,
      order: 'date-asc',
    });
    expect(planEventSearch(eventQuery({ near, sort: 'distance-asc' })).distance).toBe(1);
  });

  it('slices the date order for a date range under another order, and walks it under a date order', () => {
    const start = { from: new Date('2030-01-01T00:00:00Z'), to: new Date('2030-04-01T00:00:00Z') };
    const byName = planEventSearch(eventQuery({ start, sort: 'name-asc' }));
    expect(byName).toMatchObject({ strategy: 'date-slice', order: 'name-asc' });
    expect(byName.start).toEqual({ from: start.from.getTime(), to: start.to.getTime() });
    for (const sort of ['default', 'date-asc', 'date-desc'] as const) {
      expect(planEventSearch(eventQuery({ start, sort })).strategy).toBe('walk');
    }
    // An open end is unbounded on that side.
    expect(planEventSearch(eventQuery({ start: { from: start.from } })).start).toEqual({
      from: start.from.getTime(),
      to: Infinity,
    });
    // With a posting list, the list gives the candidates and the range is checked on them.
    expect(planEventSearch(eventQuery({ start, keyword: 'x', sort: 'name-asc' })).strategy).toBe(
      'candidates',
    );
  });
});

describe('planEventSearch: flags and entry filters', () => {
  it('refuses hidden, TBA, TBD and test events by default, and keeps or requires them when asked', () => {
    expect(planEventSearch(eventQuery()).mask).toEqual({
      required: 0,
      refused: FLAG_HIDDEN | FLAG_TBA | FLAG_TBD | FLAG_TEST,
    });
    const plan = planEventSearch(
      eventQuery({ includeTba: 'yes', includeTbd: 'only', includeTest: 'no' }),
    );
    expect(plan.mask).toEqual({ required: FLAG_TBD, refused: FLAG_HIDDEN | FLAG_TEST });
  });

  it('turns seats-available into the sold-out bit and the on-sale filter', () => {
    const plan = planEventSearch(eventQuery({ seatsAvailable: true }));
    expect(plan.mask.refused & FLAG_SOLD_OUT).toBe(FLAG_SOLD_OUT);
    expect(plan.filters).toEqual([{ kind: 'on-sale' }]);
  });

  it('writes the entry filters normalized, in a fixed order', () => {
    const onsale = { from: new Date('2029-01-01T00:00:00Z') };
    const plan = planEventSearch(
      eventQuery({
        excludeExternal: true,
        includeRescheduled: 'only',
        includeCancelled: 'no',
        excludePackages: true,
        maxPrice: 100,
        minPrice: 20,
        priceExclFees: true,
        promoterIds: ['P1'],
        offsale: { to: new Date('2031-01-01T00:00:00Z') },
        onsale,
        sources: ['Ticketmaster'],
        stateCodes: ['ny'],
        countryCodes: ['us'],
        city: 'New  York',
        postalCode: '10001 ',
      }),
    );
    expect(plan.strategy).toBe('walk');
    expect(plan.filters).toEqual([
      { kind: 'postal-code', value: '10001' },
      { kind: 'city', value: 'new york' },
      { kind: 'country', codes: new Set(['US']) },
      { kind: 'state', codes: new Set(['NY']) },
      { kind: 'source', names: new Set(['ticketmaster']) },
      { kind: 'onsale', from: onsale.from.getTime(), to: Infinity },
      { kind: 'offsale', from: -Infinity, to: new Date('2031-01-01T00:00:00Z').getTime() },
      { kind: 'promoter', ids: new Set(['P1']) },
      { kind: 'min-price', value: 20, withFees: false },
      { kind: 'max-price', value: 100, withFees: false },
      { kind: 'not-package' },
      { kind: 'cancelled', inclusion: 'no' },
      { kind: 'rescheduled', inclusion: 'only' },
      { kind: 'not-external' },
    ]);
  });

  it('checks the page: offset 0 or more, size 1 to 500, 20 by default', () => {
    expect(planEventSearch(eventQuery({ page: { offset: 40, limit: 0 } }))).toMatchObject({
      offset: 40,
      limit: 20,
    });
    expect(() => planEventSearch(eventQuery({ page: { offset: 0, limit: 501 } }))).toThrow(
      InvalidQueryError,
    );
    expect(() => planEventSearch(eventQuery({ page: { offset: -1, limit: 10 } }))).toThrow(
      InvalidQueryError,
    );
  });
});
