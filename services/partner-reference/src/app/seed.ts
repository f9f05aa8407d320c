import type { CreateEventBody, CreateVenueBody } from './admin-schemas.js';
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

/** What the demo events refer to: the seeding time, the logo, the tax plan and both venues. */
interface DemoContext {
  now: Date;
  logoId: string;
  taxPlanId: string;
  arena: { venue_id: string; manifest_ids: string[] };
  hall: { venue_id: string; manifest_ids: string[] };
}

const rows = (letters: string, seats: number) => letters.split('').map((row) => ({ row, seats }));

/** An arena with reserved seating: two levels, four areas, 500 seats. */
const ARENA: CreateVenueBody = {
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
};

/** A general-admission hall of 800 places. */
const HALL: CreateVenueBody = {
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
};

/** A regular price type and an access-code one (80% of the face value). */
const PRICE_TYPES: CreateEventBody['price_types'] = [
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

/** What every demo event shares: currency, limits, price types, logo, fee, texts and dates. */
const common = (demo: DemoContext, date: string) => ({
  currency: 'EUR',
  maximum_tickets_quantity: 8,
  price_types: PRICE_TYPES,
  logos: [{ id: demo.logoId, position: 'TOP' }],
  price_components: [{ id: 'BOOKING-FEE', amount: '150', tax_plan_id: demo.taxPlanId }],
  ticket_texts: ['Doors open one hour before the show', 'No re-entry'],
  date_time: date,
  doors_date_time: new Date(Date.parse(date) - 3_600_000).toISOString(),
});

/** The one price period: on sale since yesterday until the show. */
const period = (now: Date, date: string) => ({
  id: 'MAIN',
  start_date_time: new Date(now.getTime() - DAY).toISOString(),
  end_date_time: date,
});

/** An event at the arena, priced per level (the access-code price on the floor only). */
const arenaEvent = (
  demo: DemoContext,
  days: number,
  en: string,
  fr: string,
  genre: [string, string],
  floor: string,
  balcony: string,
): CreateEventBody => {
  const date = eveningIn(demo.now, days);
  return {
    venue_id: demo.arena.venue_id,
    manifest_id: demo.arena.manifest_ids[0]!,
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
        price_period: period(demo.now, date),
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
    ...common(demo, date),
  };
};

/** An event at the hall, one price for its general admission. */
const hallEvent = (
  demo: DemoContext,
  days: number,
  en: string,
  fr: string,
  genre: [string, string],
  price: string,
): CreateEventBody => {
  const date = eveningIn(demo.now, days);
  return {
    venue_id: demo.hall.venue_id,
    manifest_id: demo.hall.manifest_ids[0]!,
    text_infos: [
      { lang: 'en-us', name: en, description: `${en} at Riverside Hall.` },
      { lang: 'fr-fr', name: fr, description: `${fr} au Riverside Hall.` },
    ],
    genre_info: [{ genre_id: genre[0], genre_name: genre[1] }],
    price_levels: [{ id: 'PL-GA', text_infos: [{ lang: 'en-us', name: 'General admission' }] }],
    face_value_prices: [
      {
        price_period: period(demo.now, date),
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
    ...common(demo, date),
  };
};

/** The four demo events over the next months, two at each venue. */
function demoEvents(demo: DemoContext): CreateEventBody[] {
  const events = [
    arenaEvent(
      demo,
      21,
      'The Midnight Echoes',
      'Les Échos de Minuit',
      ['ROCK', 'Rock'],
      '6500',
      '4500',
    ),
    arenaEvent(
      demo,
      75,
      'Symphony Under Lights',
      'Symphonie sous les lumières',
      ['CLASSICAL', 'Classical'],
      '8000',
      '5000',
    ),
    hallEvent(
      demo,
      45,
      'Northern Beats Club Night',
      'Soirée Northern Beats',
      ['ELECTRONIC', 'Electronic'],
      '2500',
    ),
    hallEvent(
      demo,
      120,
      'Laugh Out Loud Comedy',
      'Soirée humour Laugh Out Loud',
      ['COMEDY', 'Comedy'],
      '1800',
    ),
  ];
  // The arena's rock night sells secure-entry (rotating barcode) tickets, so the demo shows both kinds.
  events[0] = { ...events[0]!, secure_entry: true };
  return events;
}

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
  const arena = await backOffice.createVenue(ARENA);
  const hall = await backOffice.createVenue(HALL);
  const demo: DemoContext = { now, logoId: logo_id, taxPlanId: tax_plan_id, arena, hall };
  const eventIds: string[] = [];
  for (const event of demoEvents(demo))
    eventIds.push((await backOffice.createEvent(event)).event_id);
  return { venues: [arena.venue_id, hall.venue_id], events: eventIds };
}
