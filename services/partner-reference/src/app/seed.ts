import type { NewEvent, NewVenue } from './back-office-inputs.js';
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
  arena: { venueId: string; manifestIds: string[] };
  hall: { venueId: string; manifestIds: string[] };
}

const rows = (letters: string, seats: number) => letters.split('').map((row) => ({ row, seats }));

/** An arena with reserved seating: two levels, four areas, 500 seats. */
const ARENA: NewVenue = {
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
      priceLevels: [
        { id: 'PL-FLOOR', name: 'Floor' },
        { id: 'PL-BALCONY', name: 'Balcony' },
      ],
      areas: [
        ...(['LEFT', 'CENTRE', 'RIGHT'] as const).map((section) => ({
          id: `FLOOR-${section}`,
          name: `Floor ${section.toLowerCase()}`,
          levelId: 'FLOOR',
          sectionId: section,
          priceLevelId: 'PL-FLOOR',
          generalAdmission: false,
          rows: rows('ABCDEFGHIJ', section === 'CENTRE' ? 16 : 12),
        })),
        {
          id: 'BALCONY-CENTRE',
          name: 'Balcony centre',
          levelId: 'BALCONY',
          sectionId: 'CENTRE',
          priceLevelId: 'PL-BALCONY',
          generalAdmission: false,
          rows: rows('ABCDE', 20),
        },
      ],
    },
  ],
};

/** A general-admission hall of 800 places. */
const HALL: NewVenue = {
  name: 'Riverside Hall',
  city: 'Amsterdam',
  country: 'NL',
  timezone: 'Europe/Amsterdam',
  manifests: [
    {
      name: 'Hall — standing',
      levels: [{ id: 'MAIN', name: 'Main floor', position: 1 }],
      sections: [{ id: 'STANDING', name: 'Standing' }],
      priceLevels: [{ id: 'PL-GA', name: 'General admission' }],
      areas: [
        {
          id: 'GA',
          name: 'General admission',
          levelId: 'MAIN',
          sectionId: 'STANDING',
          priceLevelId: 'PL-GA',
          generalAdmission: true,
          capacity: 800,
        },
      ],
    },
  ],
};

/** A regular price type and an access-code one (80% of the face value). */
const PRICE_TYPES: NewEvent['priceTypes'] = [
  {
    id: 'STANDARD',
    regular: true,
    textInfos: [
      { lang: 'en-us', name: 'Standard' },
      { lang: 'fr-fr', name: 'Tarif normal' },
    ],
  },
  {
    id: 'FANCLUB',
    regular: false,
    accessCode: 'FANCLUB',
    textInfos: [
      { lang: 'en-us', name: 'Fan club presale', description: 'Needs the fan club code' },
      { lang: 'fr-fr', name: 'Prévente fan club' },
    ],
  },
];

/** What every demo event shares: currency, limits, price types, logo, fee, texts and dates. */
const common = (demo: DemoContext, date: string) => ({
  currency: 'EUR',
  maximumTicketsQuantity: 8,
  priceTypes: PRICE_TYPES,
  logos: [{ id: demo.logoId, position: 'TOP' }],
  priceComponents: [{ id: 'BOOKING-FEE', amountMinor: 150, taxPlanId: demo.taxPlanId }],
  ticketTexts: ['Doors open one hour before the show', 'No re-entry'],
  dateTime: date,
  doorsDateTime: new Date(Date.parse(date) - 3_600_000).toISOString(),
});

/** The one price period: on sale since yesterday until the show. */
const period = (now: Date, date: string) => ({
  id: 'MAIN',
  start: new Date(now.getTime() - DAY).toISOString(),
  end: date,
});

/** An event at the arena, priced per level (the access-code price on the floor only). */
const arenaEvent = (
  demo: DemoContext,
  days: number,
  en: string,
  fr: string,
  genre: [string, string],
  floor: number,
  balcony: number,
): NewEvent => {
  const date = eveningIn(demo.now, days);
  return {
    venueId: demo.arena.venueId,
    manifestId: demo.arena.manifestIds[0]!,
    textInfos: [
      { lang: 'en-us', name: en, description: `${en} at Marquee Arena.` },
      { lang: 'fr-fr', name: fr, description: `${fr} à la Marquee Arena.` },
    ],
    genres: [{ genreId: genre[0], genreName: genre[1] }],
    priceLevels: [
      { id: 'PL-FLOOR', textInfos: [{ lang: 'en-us', name: 'Floor' }] },
      { id: 'PL-BALCONY', textInfos: [{ lang: 'en-us', name: 'Balcony' }] },
    ],
    faceValuePrices: [
      {
        ...period(demo.now, date),
        prices: [
          { priceLevelId: 'PL-FLOOR', priceTypeId: 'STANDARD', amountMinor: floor },
          { priceLevelId: 'PL-BALCONY', priceTypeId: 'STANDARD', amountMinor: balcony },
          {
            priceLevelId: 'PL-FLOOR',
            priceTypeId: 'FANCLUB',
            amountMinor: Math.round(floor * 0.8),
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
  price: number,
): NewEvent => {
  const date = eveningIn(demo.now, days);
  return {
    venueId: demo.hall.venueId,
    manifestId: demo.hall.manifestIds[0]!,
    textInfos: [
      { lang: 'en-us', name: en, description: `${en} at Riverside Hall.` },
      { lang: 'fr-fr', name: fr, description: `${fr} au Riverside Hall.` },
    ],
    genres: [{ genreId: genre[0], genreName: genre[1] }],
    priceLevels: [{ id: 'PL-GA', textInfos: [{ lang: 'en-us', name: 'General admission' }] }],
    faceValuePrices: [
      {
        ...period(demo.now, date),
        prices: [
          { priceLevelId: 'PL-GA', priceTypeId: 'STANDARD', amountMinor: price },
          {
            priceLevelId: 'PL-GA',
            priceTypeId: 'FANCLUB',
            amountMinor: Math.round(price * 0.8),
          },
        ],
      },
    ],
    ...common(demo, date),
  };
};

/** The four demo events over the next months, two at each venue. */
function demoEvents(demo: DemoContext): NewEvent[] {
  const events = [
    arenaEvent(
      demo,
      21,
      'The Midnight Echoes',
      'Les Échos de Minuit',
      ['ROCK', 'Rock'],
      6500,
      4500,
    ),
    arenaEvent(
      demo,
      75,
      'Symphony Under Lights',
      'Symphonie sous les lumières',
      ['CLASSICAL', 'Classical'],
      8000,
      5000,
    ),
    hallEvent(
      demo,
      45,
      'Northern Beats Club Night',
      'Soirée Northern Beats',
      ['ELECTRONIC', 'Electronic'],
      2500,
    ),
    hallEvent(
      demo,
      120,
      'Laugh Out Loud Comedy',
      'Soirée humour Laugh Out Loud',
      ['COMEDY', 'Comedy'],
      1800,
    ),
  ];
  // The arena's rock night sells secure-entry (rotating barcode) tickets, so the demo shows both kinds.
  events[0] = { ...events[0]!, secureEntry: true };
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
  if ((await backOffice.listVenues()).length > 0) return undefined;
  const now = options.now ?? new Date();
  const logoId = await backOffice.createLogo({ format: 'png', data: DEMO_LOGO });
  const taxPlanId = await backOffice.createTaxPlan({
    name: 'Standard VAT',
    rates: [{ name: 'VAT', rate: '20.00' }],
  });
  const arena = await backOffice.createVenue(ARENA);
  const hall = await backOffice.createVenue(HALL);
  const demo: DemoContext = { now, logoId, taxPlanId, arena, hall };
  const eventIds: string[] = [];
  for (const event of demoEvents(demo)) eventIds.push(await backOffice.createEvent(event));
  return { venues: [arena.venueId, hall.venueId], events: eventIds };
}
