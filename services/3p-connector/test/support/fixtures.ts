import type { AvailabilityAnswer, Manifest, PartnerEvent } from '@marquee/partner-api';

/** A partner event of the contract with every optional part filled in. */
export function partnerEvent(overrides: Partial<PartnerEvent> = {}): PartnerEvent {
  return {
    event_id: 'EV1',
    last_modification: '2026-03-01T10:00:00Z',
    venue_id: 'V1',
    organization_info: { promoter_id: 'TAX-42', promoter_name: 'Live Promotions' },
    manifest_id: 'M1',
    text_infos: [
      { lang: 'fr-fr', name: 'Le Concert', description: 'Une soirée' },
      { lang: 'en-us', name: 'The Concert', description: 'An evening' },
    ],
    maximum_tickets_quantity: 8,
    genre_info: [
      { genre_id: 'G1', genre_name: 'Rock' },
      { genre_id: 'G2', genre_name: 'Pop' },
    ],
    date_time: '2026-06-01T18:30:00Z',
    date_time_properties: { date_hidden: false, time_hidden: false },
    timezone: 'Europe/Paris',
    currency: 'EUR',
    visibility: { default_visibility: 'VISIBLE' },
    doors_date_time: '2026-06-01T17:30:00Z',
    doors_date_time_properties: { date_hidden: false, time_hidden: false },
    price_levels: [
      { id: 'PL1', text_infos: [{ lang: 'en-us', name: 'Category 1' }] },
      { id: 'PL2', text_infos: [] },
    ],
    price_types: [
      { id: 'ADULT', regular: true, text_infos: [{ lang: 'en-us', name: 'Adult' }] },
      {
        id: 'VIP',
        regular: false,
        access_code: 'letmein',
        text_infos: [{ lang: 'en-us', name: 'Presale', description: 'Fan club' }],
      },
    ],
    face_value_prices: [
      {
        price_period: {
          id: 'PP1',
          start_date_time: '2026-01-01T00:00:00Z',
          end_date_time: '2026-03-01T00:00:00Z',
        },
        prices: [
          { price_level_id: 'PL1', price_type_id: 'ADULT', amount: '5000' },
          { price_level_id: 'PL2', price_type_id: 'ADULT', amount: '3000' },
        ],
      },
      {
        price_period: {
          id: 'PP2',
          start_date_time: '2026-03-01T00:00:00Z',
          end_date_time: '2026-06-01T18:00:00Z',
        },
        prices: [
          { price_level_id: 'PL1', price_type_id: 'ADULT', amount: '5500' },
          { price_level_id: 'PL3', price_type_id: 'VIP', amount: '9900' },
        ],
      },
    ],
    logos: [{ id: 'LOGO1', position: 'top' }],
    price_components: [{ id: 'PC1', amount: '100', tax_plan_id: 'TP1' }],
    ...overrides,
  };
}

export const manifest: Manifest = {
  manifest_id: 'M1',
  venue_id: 'V1',
  name: 'Grand Hall',
  levels: [{ id: 'L1', name: 'Floor', position: 1 }],
  sections: [{ id: 'S1', name: 'A' }],
  price_levels: [
    { id: 'PL1', name: 'Cat 1' },
    { id: 'PL2', name: 'Cat 2' },
  ],
  areas: [
    {
      id: 'A1',
      name: 'Floor A',
      level_id: 'L1',
      section_id: 'S1',
      price_level_id: 'PL1',
      general_admission: false,
      capacity: 2,
      seats: [
        { id: 'S1-1', row: '1', number: '1' },
        { id: 'S1-2', row: '1', number: '2' },
      ],
    },
    { id: 'A3', name: 'Balcony', price_level_id: 'PL3', general_admission: true, capacity: 50 },
  ],
};

export function availability(
  eventId = 'EV1',
  lastModification = '2026-03-01T10:00:00Z',
): AvailabilityAnswer {
  return {
    event_id: eventId,
    last_modification: lastModification,
    areas: [
      {
        area_id: 'A1',
        level_id: 'L1',
        section_id: 'S1',
        price_level_id: 'PL1',
        general_admission: false,
        available: 1,
        unavailable: 1,
        available_seats: [{ id: 'S1-2', row: '1', number: '2' }],
      },
      {
        area_id: 'A3',
        price_level_id: 'PL3',
        general_admission: true,
        available: 40,
        unavailable: 10,
      },
    ],
  };
}

/** A confirmed order of the contract (`inventory_order_id` O1). */
export const confirmedOrder = {
  inventory_order_id: 'O1',
  inventory_token: 'B1',
  event_id: 'EV1',
  status: 'CONFIRMED',
  external_reference: 'cart-1',
  external_order_id: 'order-1',
  print_authorized: true,
  created_at: '2026-03-02T10:00:00Z',
  updated_at: '2026-03-02T10:01:00Z',
  currency: 'EUR',
  tickets_amount: '5000',
  tickets_quantity: 1,
  tickets: [],
};

/** The partner's answer to the health check. */
export const healthAnswer = { status: 200, body: { id: 0, message: 'ok' } };
