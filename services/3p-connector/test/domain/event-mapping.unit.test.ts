import { describe, expect, it } from 'vitest';
import { manifest, partnerEvent } from '../support/fixtures.js';
import {
  accessCodesOf,
  defaultLocale,
  localDateTime,
  platformLocale,
  referencedResources,
  toDiscoveryEvent,
  type MappingInput,
} from '../../src/domain/event-mapping.js';
import { toCatalogEventMessage } from '../../src/adapters/proto/event-message.js';

/** The discovery event as `event-changed` publishes it. */
const toCatalogEvent = (input: MappingInput) => toCatalogEventMessage(toDiscoveryEvent(input));

const created = new Date('2026-02-01T00:00:00Z');
const input = (
  overrides: Partial<MappingInput> = {},
  event = partnerEvent(),
  status = 'ON_SALE',
) => ({
  id: 'AbCdEfGhIjKlMnO',
  version: 3,
  partner: { id: 'p1', slug: 'ticket-hub' },
  venueId: 'V1',
  answer: { event, status },
  manifest,
  createdAt: created,
  updatedAt: created,
  ...overrides,
});

describe('toCatalogEvent', () => {
  it('maps text_infos to names and descriptions per locale, en-* first', () => {
    const sut = toCatalogEvent(input());
    expect(sut.names!.values).toEqual({ 'en-US': 'The Concert', 'fr-FR': 'Le Concert' });
    expect(Object.keys(sut.names!.values)[0]).toBe('en-US');
    expect(sut.descriptions!.values['fr-FR']).toBe('Une soirée');
    expect(platformLocale('en-us')).toBe('en-US');
    expect(defaultLocale([{ lang: 'de-de' }, { lang: 'it-it' }])).toBe('de-DE');
  });

  it('maps genres to classifications, the first primary', () => {
    const sut = toCatalogEvent(input());
    expect(sut.classifications).toEqual([
      {
        primary: true,
        segment: undefined,
        genre: { id: 'G1', names: { values: { 'en-US': 'Rock' } } },
        subGenre: undefined,
      },
      {
        primary: false,
        segment: undefined,
        genre: { id: 'G2', names: { values: { 'en-US': 'Pop' } } },
        subGenre: undefined,
      },
    ]);
  });

  it('gives the standard price range over every period, in minor units of the event currency', () => {
    expect(toCatalogEvent(input()).priceRanges).toEqual([
      {
        type: 'PRICE_RANGE_TYPE_STANDARD',
        min: { amountMinor: 3000, currency: 'EUR' },
        max: { amountMinor: 9900, currency: 'EUR' },
      },
    ]);
  });

  it('carries ticketing: manifest, limits, price levels named from the manifest when missing, price types without codes', () => {
    const sut = toCatalogEvent(input()).ticketing!;
    expect(sut).toMatchObject({ manifestId: 'M1', maximumTicketsQuantity: 8, currency: 'EUR' });
    expect(sut.priceLevels.map((l) => [l.id, l.names?.values['en-US']])).toEqual([
      ['PL1', 'Category 1'],
      ['PL2', 'Cat 2'],
      ['PL3', 'Balcony'],
    ]);
    expect(sut.priceTypes.map((t) => [t.id, t.regular, t.accessCodeRequired])).toEqual([
      ['ADULT', true, false],
      ['VIP', false, true],
    ]);
    expect(JSON.stringify(toCatalogEvent(input()))).not.toContain('letmein');
    expect(sut.pricePeriods[1]).toMatchObject({
      id: 'PP2',
      startDateTime: new Date('2026-03-01T00:00:00Z'),
      prices: [
        {
          priceLevelId: 'PL1',
          priceTypeId: 'ADULT',
          amount: { amountMinor: 5500, currency: 'EUR' },
        },
        { priceLevelId: 'PL3', priceTypeId: 'VIP', amount: { amountMinor: 9900, currency: 'EUR' } },
      ],
    });
  });

  it.each([
    ['VISIBLE', undefined, true, undefined],
    ['HIDDEN', undefined, false, undefined],
    ['NOT_VISIBLE', undefined, true, { visible: false }],
    [
      'NOT_VISIBLE',
      { visibility: 'VISIBLE', starts_on: '2026-04-01T00:00:00Z' },
      true,
      { visible: true, startDateTime: new Date('2026-04-01T00:00:00Z') },
    ],
    [
      'VISIBLE',
      { visibility: 'HIDDEN', starts_on: '2026-05-01T00:00:00Z' },
      true,
      { visible: true, endDateTime: new Date('2026-05-01T00:00:00Z') },
    ],
  ] as const)('maps visibility %s with override %j', (base, override, active, window) => {
    const event = partnerEvent({
      visibility: {
        default_visibility: base,
        ...(override ? { visibility_override: override } : {}),
      },
    });
    const sut = toCatalogEvent(input({}, event));
    expect(sut.active).toBe(active);
    if (window) expect(sut.publicVisibility).toMatchObject(window);
    else expect(sut.publicVisibility).toBeUndefined();
  });

  it('carries the secure-entry flag of the event, false when the partner does not give it', () => {
    expect(toCatalogEvent(input()).ticketing!.secureEntryEnabled).toBe(false);
    const secure = toCatalogEvent(input({}, { ...partnerEvent(), secure_entry: true }));
    expect(secure.ticketing!.secureEntryEnabled).toBe(true);
  });

  it('maps CANCELED in any case to cancelled, anything else to on sale', () => {
    expect(toCatalogEvent(input({}, partnerEvent(), 'canceled')).status).toBe(
      'EVENT_STATUS_CANCELLED',
    );
    expect(toCatalogEvent(input({}, partnerEvent(), 'CANCELED')).status).toBe(
      'EVENT_STATUS_CANCELLED',
    );
    expect(toCatalogEvent(input()).status).toBe('EVENT_STATUS_ONSALE');
  });

  it('gives local date and time in the event time zone, doors as access start', () => {
    const sut = toCatalogEvent(input()).dates!;
    expect(sut.start).toMatchObject({
      localDate: '2026-06-01',
      localTime: '20:30:00',
      dateTime: new Date('2026-06-01T18:30:00Z'),
      dateTba: false,
      timeTba: false,
    });
    expect(sut.timezone).toBe('Europe/Paris');
    expect(sut.access!.startDateTime).toEqual(new Date('2026-06-01T17:30:00Z'));
    expect(localDateTime(new Date('2026-01-01T03:00:00Z'), 'America/New_York')).toEqual({
      date: '2025-12-31',
      time: '22:00:00',
    });
  });

  it('hides a hidden date (TBA, no local date) and a hidden time (TBA, no local time)', () => {
    const dateHidden = toCatalogEvent(
      input({}, partnerEvent({ date_time_properties: { date_hidden: true, time_hidden: false } })),
    ).dates!.start!;
    expect(dateHidden).toMatchObject({ localDate: '', dateTba: true, dateTime: undefined });
    const timeHidden = toCatalogEvent(
      input({}, partnerEvent({ date_time_properties: { date_hidden: false, time_hidden: true } })),
    ).dates!.start!;
    expect(timeHidden).toMatchObject({ localDate: '2026-06-01', localTime: '', timeTba: true });
  });

  it('names the promoter, the venue by partner reference, the origin and the source', () => {
    const sut = toCatalogEvent(input());
    expect(sut.promoter).toMatchObject({
      id: 'TAX-42',
      names: { values: { 'en-US': 'Live Promotions' } },
    });
    expect(sut.location).toEqual({
      $case: 'venue',
      value: {
        ref: { $case: 'source', value: { id: 'V1', name: 'ticket-hub' } },
        names: { values: { 'en-US': 'Grand Hall' } },
        resolvedId: '',
      },
    });
    expect(sut.origin!.kind).toEqual({
      $case: 'partnerImport',
      value: {
        partnerId: 'p1',
        partnerEventId: 'EV1',
        partnerVenueId: 'V1',
        lastModification: new Date('2026-03-01T10:00:00Z'),
      },
    });
    expect(sut.source).toMatchObject({ id: 'p1', name: 'ticket-hub' });
    expect(sut).toMatchObject({ id: 'AbCdEfGhIjKlMnO', version: 3, test: false });
    expect(sut.sales!.publicSale).toMatchObject({
      startDateTime: new Date('2026-01-01T00:00:00Z'),
      endDateTime: new Date('2026-06-01T18:00:00Z'),
    });
  });

  it('places the event in the city and country the partner describes its venue with', () => {
    const sut = toCatalogEvent(
      input({}, partnerEvent({ venue_info: { name: 'Grand Hall', city: 'Leeds', country: 'GB' } })),
    );
    expect(sut.location).toMatchObject({
      $case: 'place',
      value: {
        names: { values: { 'en-US': 'Grand Hall' } },
        cityNames: { values: { 'en-US': 'Leeds' } },
        country: { countryCode: 'GB' },
      },
    });
  });

  it('keeps access codes and referenced logos and tax plans for the connector', () => {
    expect(accessCodesOf(partnerEvent())).toEqual([{ priceTypeId: 'VIP', code: 'letmein' }]);
    expect(referencedResources(partnerEvent())).toEqual({ logos: ['LOGO1'], taxPlans: ['TP1'] });
  });
});
