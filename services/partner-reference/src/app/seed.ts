import type { CreateEventBody } from './admin-schemas.js';
import type { BackOffice } from './back-office.js';

export interface SeededDemo {
  venues: string[];
  events: string[];
}

// A 1×1 transparent PNG.
const DEMO_LOGO =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

const DAY = 86_400_000;

/** A date `days` from `now`, at 19:30 UTC. */
const eveningIn = (now: Date, days: number): string => {
  const date = new Date(now.getTime() + days * DAY);
  date.setUTCHours(19, 30, 0, 0);
  return date.toISOString();
};

/**
 * The demo inventory: two venues — an arena with reserved seating (two levels, four areas, 500
 * seats) and a general-admission hall (800 places) — and four events over the next months, with
 * texts in two languages, genres, a regular and an access-code price type, face values, a logo
 * and a tax plan. Dates are relative to `now`. Does nothing (returns `undefined`) when venues exist.
 */
export async function seedDemoInventory(
  backOffice: BackOffice,
  options: { now?: Date } = {},
): Promise<SeededDemo | undefined> {
  if ((await backOffice.listVenues()).venues.length > 0) return undefined;
  const now = options.now ?? new Date();
  const { logo_id } = await backOffice.createLogo({ format: 'png', data: DEMO_LOGO });
  const { tax_plan_id } = await backOffice.createTaxPlan({
    name: 'Standard VAT',
    rates: [{ name: 'VAT', rate: '20.00' }],
  });
  const rows = (letters: string, seats: number) => letters.split('').map((row) => ({ row, seats }));
  const arena = await backOffice.createVenue({
    name: 'Marquee Arena',
    city: 'Berlin',
    country: 'DE',
    timezone: 'Europe/Berlin',
    manifests: [
      {
        name: 'Arena — seated concert',
        levels: [
          { id: 'FLOOR', name: 'Floor', position: 1 },
          { id: 'BALCONY', name: 'Balcony', position: 2 },
        ],
        sections: [
          { id: 'LEFT', name: 'Left' },
          { id: 'CENTRE', name: 'Centre' },
          { id: 'RIGHT', name: 'Right' },
        ],
        price_levels: [
          { id: 'PL-FLOOR', name: 'Floor' },
          { id: 'PL-BALCONY', name: 'Balcony' },
        ],
        areas: [
          ...(['LEFT', 'CENTRE', 'RIGHT'] as const).map((section) => ({
            id: `FLOOR-${section}`,
            name: `Floor ${section.toLowerCase()}`,
            level_id: 'FLOOR',
            section_id: section,
            price_level_id: 'PL-FLOOR',
            general_admission: false,
            rows: rows('ABCDEFGHIJ', section === 'CENTRE' ? 16 : 12),
          })),
          {
            id: 'BALCONY-CENTRE',
            name: 'Balcony centre',
            level_id: 'BALCONY',
            section_id: 'CENTRE',
            price_level_id: 'PL-BALCONY',
            general_admission: false,
            rows: rows('ABCDE', 20),
          },
        ],
      },
    ],
  });
  const hall = await backOffice.createVenue({
    name: 'Riverside Hall',
    city: 'Amsterdam',
    country: 'NL',
    timezone: 'Europe/Amsterdam',
    manifests: [
      {
        name: 'Hall — standing',
        levels: [{ id: 'MAIN', name: 'Main floor', position: 1 }],
        sections: [{ id: 'STANDING', name: 'Standing' }],
        price_levels: [{ id: 'PL-GA', name: 'General admission' }],
        areas: [
          {
            id: 'GA',
            name: 'General admission',
            level_id: 'MAIN',
            section_id: 'STANDING',
            price_level_id: 'PL-GA',
            general_admission: true,
            capacity: 800,
          },
        ],
      },
    ],
  });

  const priceTypes: CreateEventBody['price_types'] = [
    {
      id: 'STANDARD',
      regular: true,
      text_infos: [
        { lang: 'en-us', name: 'Standard' },
        { lang: 'fr-fr', name: 'Tarif normal' },
      ],
    },
    {
      id: 'FANCLUB',
      regular: false,
      access_code: 'FANCLUB',
      text_infos: [
        { lang: 'en-us', name: 'Fan club presale', description: 'Needs the fan club code' },
        { lang: 'fr-fr', name: 'Prévente fan club' },
      ],
    },
  ];
  const common = (date: string) => ({
    currency: 'EUR',
    maximum_tickets_quantity: 8,
    price_types: priceTypes,
    logos: [{ id: logo_id, position: 'TOP' }],
    price_components: [{ id: 'BOOKING-FEE', amount: '150', tax_plan_id }],
    ticket_texts: ['Doors open one hour before the show', 'No re-entry'],
    date_time: date,
    doors_date_time: new Date(Date.parse(date) - 3_600_000).toISOString(),
  });
  const period = (date: string) => ({
    id: 'MAIN',
    start_date_time: new Date(now.getTime() - DAY).toISOString(),
    end_date_time: date,
  });
  const arenaEvent = (
    days: number,
    en: string,
    fr: string,
    genre: [string, string],
    floor: string,
    balcony: string,
  ): CreateEventBody => {
    const date = eveningIn(now, days);
    return {
      venue_id: arena.venue_id,
      manifest_id: arena.manifest_ids[0]!,
      text_infos: [
        { lang: 'en-us', name: en, description: `${en} at Marquee Arena.` },
        { lang: 'fr-fr', name: fr, description: `${fr} à la Marquee Arena.` },
      ],
      genre_info: [{ genre_id: genre[0], genre_name: genre[1] }],
      price_levels: [
        { id: 'PL-FLOOR', text_infos: [{ lang: 'en-us', name: 'Floor' }] },
        { id: 'PL-BALCONY', text_infos: [{ lang: 'en-us', name: 'Balcony' }] },
      ],
      face_value_prices: [
        {
          price_period: period(date),
          prices: [
            { price_level_id: 'PL-FLOOR', price_type_id: 'STANDARD', amount: floor },
            { price_level_id: 'PL-BALCONY', price_type_id: 'STANDARD', amount: balcony },
            {
              price_level_id: 'PL-FLOOR',
              price_type_id: 'FANCLUB',
              amount: String(Math.round(Number(floor) * 0.8)),
            },
          ],
        },
      ],
      ...common(date),
    };
  };
  const hallEvent = (
    days: number,
    en: string,
    fr: string,
    genre: [string, string],
    price: string,
  ): CreateEventBody => {
    const date = eveningIn(now, days);
    return {
      venue_id: hall.venue_id,
      manifest_id: hall.manifest_ids[0]!,
      text_infos: [
        { lang: 'en-us', name: en, description: `${en} at Riverside Hall.` },
        { lang: 'fr-fr', name: fr, description: `${fr} au Riverside Hall.` },
      ],
      genre_info: [{ genre_id: genre[0], genre_name: genre[1] }],
      price_levels: [{ id: 'PL-GA', text_infos: [{ lang: 'en-us', name: 'General admission' }] }],
      face_value_prices: [
        {
          price_period: period(date),
          prices: [
            { price_level_id: 'PL-GA', price_type_id: 'STANDARD', amount: price },
            {
              price_level_id: 'PL-GA',
              price_type_id: 'FANCLUB',
              amount: String(Math.round(Number(price) * 0.8)),
            },
          ],
        },
      ],
      ...common(date),
    };
  };
  const events = [
    arenaEvent(21, 'The Midnight Echoes', 'Les Échos de Minuit', ['ROCK', 'Rock'], '6500', '4500'),
    arenaEvent(
      75,
      'Symphony Under Lights',
      'Symphonie sous les lumières',
      ['CLASSICAL', 'Classical'],
      '8000',
      '5000',
    ),
    hallEvent(
      45,
      'Northern Beats Club Night',
      'Soirée Northern Beats',
      ['ELECTRONIC', 'Electronic'],
      '2500',
    ),
    hallEvent(
      120,
      'Laugh Out Loud Comedy',
      'Soirée humour Laugh Out Loud',
      ['COMEDY', 'Comedy'],
      '1800',
    ),
  ];
  // The arena's rock night sells secure-entry (rotating barcode) tickets, so the demo shows both kinds.
  events[0] = { ...events[0]!, secure_entry: true };
  const eventIds: string[] = [];
  for (const event of events) eventIds.push((await backOffice.createEvent(event)).event_id);
  return { venues: [arena.venue_id, hall.venue_id], events: eventIds };
}
