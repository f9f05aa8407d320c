import { describe, expect, it } from 'vitest';
import {
  validatePublishedEvent as sut,
  warningMessage,
} from '../../src/domain/validate-published-event.js';

/** A complete, valid published event; tests change one thing at a time. */
const validEvent = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  source: { id: 'acme-events_1', name: 'Acme' },
  active: true,
  test: false,
  version: 1,
  url: 'https://acme.example/e/1',
  names: { 'en-us': 'Spring Concert', 'fr-ca': 'Concert du printemps' },
  attractions: [{ id: 'K8vZ9171oZ7' }, { source: { id: 'band-42', name: 'Acme' } }],
  classifications: [
    { primary: true, segment: { id: 'KZFzniwnSyZfZ7v7nJ' }, genre: { names: { 'en-us': 'Rock' } } },
  ],
  dates: {
    start: { localDate: '2026-05-01', localTime: '19:30:00', dateTime: '2026-05-01T23:30:00Z' },
    timezone: 'America/New_York',
  },
  venue: { id: 'KovZpZAEdFtJ' },
  priceRanges: { type: 'standard', currency: 'USD', min: 25, max: 99.5 },
  ...overrides,
});

function rejected(body: unknown) {
  const outcome = sut(body);
  if (outcome.ok) throw new Error('expected a rejection');
  return outcome.errors;
}

function accepted(body: unknown) {
  const outcome = sut(body);
  if (!outcome.ok) throw new Error(`expected acceptance, got ${JSON.stringify(outcome.errors)}`);
  return outcome;
}

describe('validatePublishedEvent: accepted events', () => {
  it('accepts a complete event without warnings', () => {
    const outcome = accepted(validEvent());
    expect(outcome.unknownProperties).toEqual({});
    expect(outcome.missingProperties).toEqual({});
  });

  it('accepts a place instead of a venue', () => {
    const body = validEvent({
      place: {
        names: { 'en-us': 'Central Park' },
        location: { latitude: 40.78, longitude: -73.97 },
      },
    });
    delete body.venue;
    expect(accepted(body).missingProperties).toEqual({});
  });

  it('accepts the minimal event (source only) with the missing preferred venue as a warning', () => {
    const outcome = accepted({ source: { id: 'acme', name: 'Acme' } });
    expect(outcome.missingProperties).toEqual({ venue: expect.stringContaining('place') });
  });

  it('reports unknown properties with their data, at any depth, and keeps them in the accepted body', () => {
    const outcome = accepted(
      validEvent({
        hospitality: { url: 'x', 'a.b': 1 },
        dates: { start: { localDate: '2026-05-01', color: 'red' }, timezone: 'Europe/Paris' },
        images: [
          { url: 'https://i.example/1.jpg', width: 100, height: 50, ratio: '16_9', alt: 'poster' },
        ],
      }),
    );
    expect(outcome.unknownProperties).toEqual({
      hospitality: { url: 'x', 'a.b': 1 },
      'dates.start.color': 'red',
      'images[0].alt': 'poster',
    });
    expect(outcome.event).toHaveProperty('hospitality');
  });

  it('treats an unknown property of source as a warning, not a rule violation', () => {
    expect(
      accepted(validEvent({ source: { id: 'acme', name: 'Acme', region: 'east' } }))
        .unknownProperties,
    ).toEqual({
      'source.region': 'east',
    });
  });

  it('refuses a price range whose currency is unknown or missing, naming the property', () => {
    const errors = rejected(
      validEvent({
        priceRanges: [
          { type: 'standard', currency: 'ZZZ', min: 10 },
          { type: 'standard', min: 10 },
          { type: 'standard', currency: 'XAU' },
        ],
      }),
    );
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'INVALID_PROPERTY',
        invalidProperties: { 'priceRanges[0].currency': expect.stringContaining('ISO 4217') },
        missingProperties: { 'priceRanges[1].currency': expect.any(String) },
      }),
    ]);
  });

  it('accepts the array form of priceRanges', () => {
    accepted(
      validEvent({ priceRanges: [{ type: 'standard', currency: 'EUR', min: 10, max: 20 }] }),
    );
  });
});

describe('validatePublishedEvent: rule 1, id is generated', () => {
  it('rejects a body that supplies an id', () => {
    const errors = rejected(validEvent({ id: 'mine' }));
    expect(errors).toEqual([
      {
        status: 'Rejected',
        code: 'ID_NOT_ALLOWED',
        detail: expect.any(String),
        invalidProperties: { id: 'must not be provided' },
        missingProperties: {},
      },
    ]);
  });

  it('rejects even an empty or null id', () => {
    expect(rejected(validEvent({ id: null }))[0]!.code).toBe('ID_NOT_ALLOWED');
    expect(rejected(validEvent({ id: '' }))[0]!.code).toBe('ID_NOT_ALLOWED');
  });
});

describe('validatePublishedEvent: rule 2, venue and place are exclusive', () => {
  it('rejects both', () => {
    const errors = rejected(validEvent({ place: { names: { 'en-us': 'Park' } } }));
    expect(errors.map((e) => e.code)).toEqual(['VENUE_AND_PLACE']);
    expect(Object.keys(errors[0]!.invalidProperties).sort()).toEqual(['place', 'venue']);
  });
});

describe('validatePublishedEvent: rule 3, source', () => {
  it('rejects a body without source, naming it as missing', () => {
    const body = validEvent();
    delete body.source;
    const [error] = rejected(body);
    expect(error).toMatchObject({
      code: 'INVALID_SOURCE',
      missingProperties: { source: expect.any(String) },
    });
  });

  it.each([
    ['id', { name: 'Acme' }],
    ['name', { id: 'acme' }],
    ['name', { id: 'acme', name: '' }],
  ])('requires source.%s', (field, source) => {
    const [error] = rejected(validEvent({ source }));
    expect(error!.code).toBe('INVALID_SOURCE');
    expect(error!.missingProperties).toEqual({ [`source.${field}`]: 'is required' });
  });

  it.each(['acme events', 'acme.events', 'ac/me', 'émile', 'a$b'])(
    'rejects the source id %j',
    (id) => {
      const [error] = rejected(validEvent({ source: { id, name: 'Acme' } }));
      expect(error!.invalidProperties).toEqual({
        'source.id': expect.stringContaining('letters, digits'),
      });
    },
  );

  it('applies the character rule to the name too, and needs strings', () => {
    const [error] = rejected(validEvent({ source: { id: 42, name: 'Acme Inc' } }));
    expect(error!.invalidProperties).toEqual({
      'source.id': 'must be a string',
      'source.name': expect.stringContaining('letters, digits'),
    });
  });

  it('rejects a source that is not an object', () => {
    expect(rejected(validEvent({ source: 'acme' }))[0]!.invalidProperties).toEqual({
      source: expect.any(String),
    });
  });
});

describe('validatePublishedEvent: rule 4, venue reference', () => {
  it('accepts a venue by source', () => {
    accepted(validEvent({ venue: { source: { id: 'hall-1', name: 'Acme' } } }));
  });

  it('rejects a venue with both id and source', () => {
    const [error] = rejected(
      validEvent({ venue: { id: 'KovZpZAEdFtJ', source: { id: 'hall-1', name: 'Acme' } } }),
    );
    expect(error!.code).toBe('INVALID_VENUE');
    expect(Object.keys(error!.invalidProperties).sort()).toEqual(['venue.id', 'venue.source']);
  });

  it('rejects an empty venue', () => {
    const [error] = rejected(validEvent({ venue: {} }));
    expect(error).toMatchObject({
      code: 'INVALID_VENUE',
      missingProperties: { 'venue.id': expect.any(String) },
    });
  });

  it('rejects any other property in the venue', () => {
    const [error] = rejected(validEvent({ venue: { id: 'KovZpZAEdFtJ', name: 'Hall' } }));
    expect(error).toMatchObject({
      code: 'INVALID_VENUE',
      invalidProperties: { 'venue.name': expect.any(String) },
    });
  });

  it('needs id and name in a venue source, with the character rule', () => {
    const [error] = rejected(validEvent({ venue: { source: { id: 'hall 1' } } }));
    expect(error!.invalidProperties).toEqual({
      'venue.source.id': expect.stringContaining('letters, digits'),
    });
    expect(error!.missingProperties).toEqual({ 'venue.source.name': 'is required' });
  });

  it('rejects a non-string venue id', () => {
    expect(rejected(validEvent({ venue: { id: 7 } }))[0]!.invalidProperties).toEqual({
      'venue.id': 'must be a non-empty string',
    });
  });
});

describe('validatePublishedEvent: rule 5, attraction references', () => {
  it('rejects an attraction with both id and source, pointing at its index', () => {
    const [error] = rejected(
      validEvent({ attractions: [{ id: 'a1' }, { id: 'a2', source: { id: 'b', name: 'Acme' } }] }),
    );
    expect(error!.code).toBe('INVALID_ATTRACTION');
    expect(Object.keys(error!.invalidProperties).sort()).toEqual([
      'attractions[1].id',
      'attractions[1].source',
    ]);
  });

  it('rejects an attraction with neither', () => {
    const [error] = rejected(validEvent({ attractions: [{}] }));
    expect(error!.missingProperties).toEqual({ 'attractions[0].id': expect.any(String) });
  });

  it('rejects other properties in an attraction', () => {
    const [error] = rejected(validEvent({ attractions: [{ id: 'a1', url: 'https://x' }] }));
    expect(error!.invalidProperties).toEqual({ 'attractions[0].url': expect.any(String) });
  });

  it('applies the source rule to attraction sources', () => {
    const [error] = rejected(
      validEvent({ attractions: [{ source: { id: 'band#1', name: 'Acme' } }] }),
    );
    expect(error!.invalidProperties).toEqual({
      'attractions[0].source.id': expect.stringContaining('letters'),
    });
  });

  it('rejects an attraction that is not an object', () => {
    expect(rejected(validEvent({ attractions: ['a1'] }))[0]!.code).toBe('INVALID_ATTRACTION');
  });
});

describe('validatePublishedEvent: types and locale maps', () => {
  it.each([
    ['active', 'yes'],
    ['version', '3'],
    ['names', 'Spring Concert'],
    ['attractions', { id: 'a1' }],
    ['url', 12],
  ])('rejects a wrong type of %s', (property, value) => {
    const [error] = rejected(validEvent({ [property]: value }));
    expect(error).toMatchObject({
      code: 'INVALID_PROPERTY',
      invalidProperties: { [property]: expect.any(String) },
    });
  });

  it.each(['en', 'en-US', 'EN-us', 'eng-us', 'en_us'])('rejects the locale key %j', (locale) => {
    const [error] = rejected(validEvent({ descriptions: { [locale]: 'text' } }));
    expect(error!.invalidProperties).toEqual({
      [`descriptions.${locale}`]: expect.stringContaining('xx-yy'),
    });
  });

  it('rejects a non-string locale value, also in nested locale maps', () => {
    const [error] = rejected(
      validEvent({ venue: undefined, place: { city: { names: { 'en-us': 5 } } } }),
    );
    expect(error!.invalidProperties).toEqual({ 'place.city.names.en-us': expect.any(String) });
  });

  it('rejects malformed dates, times and instants', () => {
    const [error] = rejected(
      validEvent({
        dates: {
          start: { localDate: '01/05/2026', localTime: '7pm', dateTime: '2026-13-45T10:00:00Z' },
          access: { startDateTime: '2026-05-01 18:00' },
          timezone: 'Mars/Olympus',
        },
      }),
    );
    expect(Object.keys(error!.invalidProperties).sort()).toEqual([
      'dates.access.startDateTime',
      'dates.start.dateTime',
      'dates.start.localDate',
      'dates.start.localTime',
      'dates.timezone',
    ]);
  });

  it('rejects an outlet type and a price range type outside the allowed values', () => {
    const [error] = rejected(
      validEvent({
        outlets: [{ url: 'https://o', type: 'online' }],
        priceRanges: { type: 'vip', currency: 'usd' },
      }),
    );
    expect(Object.keys(error!.invalidProperties).sort()).toEqual([
      'outlets[0].type',
      'priceRanges',
    ]);
  });

  it('accepts a seat map with an https staticUrl as a known property (no unknown-property warning)', () => {
    const outcome = accepted(
      validEvent({ seatmap: { staticUrl: 'https://maps.example/seatmaps/hall-1.png?v=2' } }),
    );
    expect(outcome.unknownProperties).toEqual({});
    expect(outcome.event.seatmap).toEqual({
      staticUrl: 'https://maps.example/seatmaps/hall-1.png?v=2',
    });
  });

  it('rejects a seat map whose staticUrl is missing, not a string or not an https URL', () => {
    for (const [seatmap, path] of [
      [{ staticUrl: 'http://maps.example/hall.png' }, 'seatmap.staticUrl'],
      [{ staticUrl: 'https://' }, 'seatmap.staticUrl'],
      [{ staticUrl: 'https://maps.example/a b.png' }, 'seatmap.staticUrl'],
      [{ staticUrl: 42 }, 'seatmap.staticUrl'],
      [{}, 'seatmap.staticUrl'],
      ['https://maps.example/hall.png', 'seatmap'],
    ] as const) {
      const [error, ...more] = rejected(validEvent({ seatmap }));
      expect(more).toEqual([]);
      expect(error!.code).toBe('INVALID_PROPERTY');
      expect(Object.keys(error!.invalidProperties)).toEqual([path]);
    }
  });

  it('rejects coordinates out of range', () => {
    const [error] = rejected(
      validEvent({ venue: undefined, place: { location: { latitude: 91, longitude: 0 } } }),
    );
    expect(error!.invalidProperties).toEqual({ 'place.location.latitude': expect.any(String) });
  });

  it('needs an id or names in each classification level', () => {
    const [error] = rejected(
      validEvent({ classifications: [{ segment: {}, genre: { id: 'g1' } }] }),
    );
    expect(error).toMatchObject({
      code: 'INVALID_CLASSIFICATION',
      missingProperties: { 'classifications[0].segment.id': 'id or names is required' },
    });
  });

  it.each([null, [], 'event', 42])('rejects a body that is not an object: %j', (body) => {
    expect(rejected(body)).toEqual([
      expect.objectContaining({
        code: 'INVALID_BODY',
        invalidProperties: { '(body)': 'must be an object' },
      }),
    ]);
  });
});

describe('validatePublishedEvent: several violations', () => {
  it('reports every violated rule as its own error item', () => {
    const errors = rejected({
      id: 'x',
      venue: { id: 'v', name: 'n' },
      place: {},
      attractions: [{}],
    });
    expect(errors.map((e) => e.code).sort()).toEqual(
      [
        'ID_NOT_ALLOWED',
        'INVALID_ATTRACTION',
        'INVALID_SOURCE',
        'INVALID_VENUE',
        'VENUE_AND_PLACE',
      ].sort(),
    );
  });

  it('bounds the number of reported properties and says how many were left out', () => {
    const attractions = Array.from({ length: 40 }, () => ({}));
    const errors = rejected(validEvent({ attractions }));
    const reported = errors.flatMap((e) => [
      ...Object.keys(e.invalidProperties),
      ...Object.keys(e.missingProperties),
    ]);
    expect(reported).toHaveLength(15);
    expect(errors.at(-1)!.detail).toContain('25 more');
  });
});

describe('validatePublishedEvent: size of a rejection', () => {
  it('stays within what gRPC status details carry, even with long non-Latin keys', () => {
    const venue: Record<string, unknown> = { id: 'KovZpZAEdFtJ' };
    for (let i = 0; i < 30; i += 1) venue[`${i}${'会場の名前'.repeat(20)}`] = 'x';

    // Every rule violated at once, with long non-Latin keys wherever a key is reported.
    const errors = rejected(
      validEvent({
        id: 'x',
        source: { id: 'bad id', name: '' },
        venue,
        place: {},
        attractions: [{}, { id: 1 }, { id: 'a', source: {} }, { source: { id: 'é', name: 'ü' } }],
        classifications: [{ segment: {} }],
        names: Object.fromEntries(
          Array.from({ length: 30 }, (_, i) => [`${i}${'名'.repeat(99)}`, 'x']),
        ),
      }),
    );

    // The platform sends details as JSON with non-ASCII escaped, and drops them above 4096 bytes.
    const escaped = JSON.stringify({ errors }).replace(/[^\x20-\x7e]/g, '\\u0000');
    expect(escaped.length).toBeLessThan(4_096);
    expect(errors).toHaveLength(7);
    expect(errors.at(-1)!.detail).toMatch(/\d+ more invalid or missing properties/);
  });
});

describe('warningMessage', () => {
  it('is undefined without warnings and names the unknown and missing properties otherwise', () => {
    expect(warningMessage({}, {})).toBeUndefined();
    const message = warningMessage({ hospitality: {} }, { venue: 'preferred' });
    expect(message).toContain('hospitality');
    expect(message).toContain('not be visible in discovery');
    expect(message).toContain('venue');
  });
});
