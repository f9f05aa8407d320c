import {
  checkAnswer,
  eventRuleProblems as contractRules,
  Manifest as ManifestSchema,
  PartnerEvent as PartnerEventSchema,
  Ticket as TicketSchema,
  type Manifest,
  type PartnerEvent,
  type Ticket,
} from '@marquee/partner-api';
import { describe, expect, it } from 'vitest';
import {
  eventFieldsFromShape,
  eventFromShape,
  eventToShape,
  manifestFromShape,
  manifestToShape,
  ticketFromShape,
  ticketToShape,
} from '../../src/adapters/partner-shapes.js';
import { eventRuleProblems } from '../../src/domain/event.js';

/** An event with every optional field of the 3P API given. */
const fullEvent: PartnerEvent = {
  event_id: 'E1',
  last_modification: '2030-01-02T03:04:05.678Z',
  venue_id: 'V1',
  venue_info: { name: 'Hall', city: 'Lyon', country: 'FR' },
  organization_info: { promoter_id: 'P1', promoter_name: 'Promoter' },
  manifest_id: 'M1',
  text_infos: [
    { lang: 'en-us', name: 'Show', description: 'A show' },
    { lang: 'fr-fr', name: 'Spectacle' },
  ],
  maximum_tickets_quantity: 6,
  genre_info: [{ genre_id: 'ROCK', genre_name: 'Rock' }],
  date_time: '2030-05-01T20:30:00+02:00',
  date_time_properties: { date_hidden: false, time_hidden: true },
  timezone: 'Europe/Paris',
  currency: 'EUR',
  secure_entry: true,
  visibility: {
    default_visibility: 'HIDDEN',
    visibility_override: { visibility: 'VISIBLE', starts_on: '2030-04-01T10:00:00+02:00' },
  },
  doors_date_time: '2030-05-01T19:30:00+02:00',
  doors_date_time_properties: { date_hidden: true, time_hidden: false },
  price_levels: [{ id: 'PL1', text_infos: [{ lang: 'en-us', name: 'Floor' }] }],
  price_types: [
    {
      id: 'ADULT',
      regular: true,
      text_infos: [
        {
          lang: 'en-us',
          name: 'Adult',
          description: 'd',
          additional_info: 'a',
          printed_description: 'p',
        },
      ],
    },
    { id: 'FAN', regular: false, access_code: 'SECRET', text_infos: [] },
  ],
  face_value_prices: [
    {
      price_period: {
        id: 'P1',
        start_date_time: '2030-01-01T00:00:00+01:00',
        end_date_time: '2030-05-01T20:30:00+02:00',
      },
      prices: [{ price_level_id: 'PL1', price_type_id: 'ADULT', amount: '4550' }],
    },
  ],
  ticket_texts: ['No re-entry'],
  logos: [{ id: 'L1', position: 'TOP' }],
  price_components: [
    { id: 'FEE', amount: '150', tax_plan_id: 'T1', taxable_organization: 'Partner' },
  ],
  sales_channels: ['INTERNET'],
};

/** The least the 3P API allows of an event. */
const bareEvent: PartnerEvent = {
  event_id: 'E2',
  last_modification: '2030-01-02T03:04:05.000Z',
  venue_id: 'V1',
  organization_info: { promoter_id: 'P1', promoter_name: 'Promoter' },
  manifest_id: 'M1',
  text_infos: [{ lang: 'en-us', name: 'Bare' }],
  maximum_tickets_quantity: 0,
  genre_info: [],
  date_time: '2030-05-01T18:30:00Z',
  date_time_properties: { date_hidden: false, time_hidden: false },
  timezone: 'UTC',
  currency: 'JPY',
  visibility: { default_visibility: 'VISIBLE' },
  price_levels: [],
  price_types: [],
  face_value_prices: [],
};

const recordOf = (event: PartnerEvent) => ({
  id: event.event_id,
  venueId: event.venue_id,
  lastModifiedAt: new Date(event.last_modification),
  details: eventFromShape(event),
});

describe('the 3P shapes of events', () => {
  it('reads every field into the domain and writes the same event back', () => {
    for (const event of [fullEvent, bareEvent]) {
      const back = eventToShape(recordOf(event));
      expect(back).toEqual(event);
      const check = checkAnswer(PartnerEventSchema, back);
      expect(check.ok ? [] : check.errors).toEqual([]);
    }
  });

  it('names fields in camelCase, amounts in minor units, zoned date-times as given', () => {
    const details = eventFromShape(fullEvent);
    expect(details).toMatchObject({
      manifestId: 'M1',
      organization: { promoterId: 'P1', promoterName: 'Promoter' },
      dateTime: '2030-05-01T20:30:00+02:00',
      dateTimeProperties: { dateHidden: false, timeHidden: true },
      visibility: {
        defaultVisibility: 'HIDDEN',
        override: { visibility: 'VISIBLE', startsOn: '2030-04-01T10:00:00+02:00' },
      },
      genres: [{ genreId: 'ROCK', genreName: 'Rock' }],
      priceComponents: [{ id: 'FEE', amountMinor: 150, taxPlanId: 'T1' }],
    });
    expect(details.faceValuePrices[0]).toEqual({
      id: 'P1',
      start: '2030-01-01T00:00:00+01:00',
      end: '2030-05-01T20:30:00+02:00',
      prices: [{ priceLevelId: 'PL1', priceTypeId: 'ADULT', amountMinor: 4550 }],
    });
    expect(details.priceTypes[0]!.textInfos[0]).toEqual({
      lang: 'en-us',
      name: 'Adult',
      description: 'd',
      additionalInfo: 'a',
      printedDescription: 'p',
    });
    expect(eventFromShape(bareEvent)).not.toHaveProperty('secureEntry');
    expect(eventFromShape(bareEvent)).not.toHaveProperty('venueInfo');
  });

  it('maps only the fields a partial event (a patch) gives', () => {
    expect(eventFieldsFromShape({ currency: 'USD', sales_channels: [] })).toEqual({
      currency: 'USD',
      salesChannels: [],
    });
    expect(eventFieldsFromShape({})).toEqual({});
  });

  it('reads an amount that is missing or not minor units as 0, never NaN', () => {
    const odd = (amount: unknown) =>
      eventFromShape({
        ...bareEvent,
        face_value_prices: [
          {
            price_period: fullEvent.face_value_prices[0]!.price_period,
            prices: [{ price_level_id: 'PL1', price_type_id: 'A', amount: amount as string }],
          },
        ],
      }).faceValuePrices[0]!.prices[0]!.amountMinor;
    expect(odd('4550')).toBe(4550);
    for (const amount of [undefined, '', 'abc', '-5', '1.5', '99999999999999999999'])
      expect(odd(amount)).toBe(0);
  });

  it('keeps the 3P API’s event rules, in its words', () => {
    const cases: Array<Pick<PartnerEvent, 'price_types' | 'logos'>> = [
      { price_types: [] },
      { price_types: fullEvent.price_types, logos: [{ id: 'L1', position: 'TOP' }] },
      {
        price_types: [
          { id: 'A', regular: true, text_infos: [] },
          { id: 'B', regular: true, text_infos: [] },
        ],
        logos: [
          { id: 'L1', position: 'TOP' },
          { id: 'L1', position: 'BOTTOM' },
          { id: 'L1', position: 'LEFT' },
        ],
      },
    ];
    for (const wire of cases) {
      const domain = eventFieldsFromShape(wire);
      expect(eventRuleProblems({ priceTypes: domain.priceTypes!, logos: domain.logos })).toEqual(
        contractRules(wire),
      );
    }
    expect(contractRules(cases[2]!)).toHaveLength(3);
  });
});

describe('the 3P shapes of manifests and tickets', () => {
  const manifest: Manifest = {
    manifest_id: 'M1',
    venue_id: 'V1',
    name: 'Concert',
    levels: [{ id: 'L1', name: 'Floor', position: 1 }],
    sections: [{ id: 'S1', name: 'Centre' }],
    price_levels: [{ id: 'PL1', name: 'Seated' }],
    areas: [
      {
        id: 'A1',
        name: 'Floor',
        level_id: 'L1',
        section_id: 'S1',
        price_level_id: 'PL1',
        general_admission: false,
        capacity: 1,
        seats: [{ id: 'A1-A-1', row: 'A', number: '1' }],
      },
      { id: 'GA', name: 'Standing', price_level_id: 'PL1', general_admission: true, capacity: 9 },
    ],
  };

  it('round-trips a manifest, optional level, section and seats staying absent', () => {
    const domain = manifestFromShape(manifest);
    expect(domain.areas[1]).toEqual({
      id: 'GA',
      name: 'Standing',
      priceLevelId: 'PL1',
      generalAdmission: true,
      capacity: 9,
    });
    expect(domain.priceLevels).toEqual([{ id: 'PL1', name: 'Seated' }]);
    expect(manifestToShape(domain)).toEqual(manifest);
    const check = checkAnswer(ManifestSchema, manifestToShape(domain));
    expect(check.ok ? [] : check.errors).toEqual([]);
  });

  it('round-trips tickets of reserved seating and of general admission', () => {
    const tickets: Ticket[] = [
      {
        ticket_id: 'B-1-1',
        area_id: 'A1',
        level_id: 'L1',
        section_id: 'S1',
        row: 'A',
        seat: '1',
        seat_id: 'A1-A-1',
        general_admission: false,
        price_level_id: 'PL1',
        price_type_id: 'ADULT',
        amount: '5000',
      },
      {
        ticket_id: 'B-1-2',
        area_id: 'GA',
        row: '',
        seat: '',
        general_admission: true,
        price_level_id: 'PL1',
        price_type_id: 'ADULT',
        amount: '0',
      },
    ];
    for (const ticket of tickets) {
      const domain = ticketFromShape(ticket);
      expect(domain.amountMinor).toBe(Number(ticket.amount));
      expect(ticketToShape(domain)).toEqual(ticket);
      const check = checkAnswer(TicketSchema, ticketToShape(domain));
      expect(check.ok ? [] : check.errors).toEqual([]);
    }
    expect(ticketFromShape(tickets[1]!)).not.toHaveProperty('seatId');
  });
});
