import {
  errorKindOf,
  retryingConflicts,
  type Clock,
  type ErrorKind,
} from '@marquee/platform/kernel';
import {
  displayName,
  eventProblems,
  manifestProblems,
  type EventDetails,
  type EventRecord,
} from '../domain/event.js';
import type { Area, Manifest, VenueRecord } from '../domain/model.js';
import type {
  EventPatch,
  NewArea,
  NewEvent,
  NewLogo,
  NewTaxPlan,
  NewVenue,
} from './back-office-inputs.js';
import type { IdGenerator, PartnerRepositories } from './ports.js';

/** A refused back-office request, by kind (the port answers `{error: {code, message}}`). */
export class AdminError extends Error {
  readonly code: Extract<ErrorKind, 'invalid_argument' | 'not_found'>;

  constructor(code: AdminError['code'], message: string) {
    super(message);
    this.name = 'AdminError';
    this.code = code;
  }
}

const badRequest = (message: string) => new AdminError('invalid_argument', message);

/** Tries of an event's compare-and-set while another write of it wins. */
const CAS_ATTEMPTS = 5;

/**
 * The back office: venues with their manifests, events, logos and tax plans. What it creates is
 * what the 3P API serves; every change of an event moves its `last_modification` forward.
 */
export class BackOffice {
  readonly #repos: PartnerRepositories;
  readonly #clock: Clock;
  readonly #ids: IdGenerator;

  constructor(options: { repositories: PartnerRepositories; clock: Clock; ids: IdGenerator }) {
    this.#repos = options.repositories;
    this.#clock = options.clock;
    this.#ids = options.ids;
  }

  async createVenue(input: NewVenue): Promise<{ venueId: string; manifestIds: string[] }> {
    const venueId = input.venueId ?? this.#ids.id('V');
    if ((await this.#repos.venues.get(venueId)) !== undefined)
      throw badRequest(`venue ${venueId} already exists`);
    const manifests: Manifest[] = input.manifests.map((m) => ({
      id: m.manifestId ?? this.#ids.id('M'),
      venueId,
      name: m.name,
      levels: m.levels,
      sections: m.sections,
      priceLevels: m.priceLevels,
      areas: m.areas.map(buildArea),
    }));
    const problems = manifests.flatMap((m) => manifestProblems(m).map((p) => `${m.name}: ${p}`));
    if (new Set(manifests.map((m) => m.id)).size !== manifests.length)
      problems.push('manifests: duplicate manifest_id');
    for (const m of manifests)
      if ((await this.#repos.manifests.get(m.id)) !== undefined)
        problems.push(`manifest ${m.id} already exists`);
    if (problems.length > 0) throw badRequest(problems.slice(0, 10).join('; '));
    // Manifests first: a venue is only listed once everything it names exists.
    for (const manifest of manifests)
      await this.#repos.manifests.insert({ id: manifest.id, venueId, manifest });
    const venue: Omit<VenueRecord, 'version'> = {
      id: venueId,
      name: input.name,
      city: input.city,
      country: input.country,
      timezone: input.timezone,
      manifestIds: manifests.map((m) => m.id),
      createdAt: this.#clock.now(),
    };
    await this.#insert(() => this.#repos.venues.insert(venue), `venue ${venueId}`);
    return { venueId, manifestIds: venue.manifestIds };
  }

  /** Every venue, oldest first. */
  listVenues(): Promise<VenueRecord[]> {
    return this.#repos.venues.find({}, { sort: { createdAt: 1 } });
  }

  async createEvent(input: NewEvent): Promise<string> {
    const venue = await this.#repos.venues.get(input.venueId);
    if (venue === undefined) throw badRequest(`unknown venue ${input.venueId}`);
    if (!venue.manifestIds.includes(input.manifestId))
      throw badRequest(`manifest ${input.manifestId} is not a manifest of venue ${venue.id}`);
    const eventId = input.eventId ?? this.#ids.id('E');
    const now = this.#clock.now();
    const { eventId: _id, venueId: _venue, manifestId, status, ...fields } = input;
    const details: EventDetails = {
      ...defaultsFor(venue),
      ...fields,
      timezone: fields.timezone ?? venue.timezone,
      venueInfo: { name: venue.name, city: venue.city, country: venue.country },
      manifestId,
    };
    await this.#checkEvent(details);
    const record: Omit<EventRecord, 'version'> = {
      id: eventId,
      venueId: venue.id,
      status: status ?? 'ON_SALE',
      details,
      createdAt: now,
      ...derived(details, now),
    };
    await this.#insert(() => this.#repos.events.insert(record), `event ${eventId}`);
    return eventId;
  }

  /** Changes an event; its last change moves forward, strictly. */
  async patchEvent(eventId: string, patch: EventPatch): Promise<EventRecord> {
    return retryingConflicts(
      async () => {
        const current = await this.#repos.events.get(eventId);
        if (current === undefined) throw new AdminError('not_found', `unknown event ${eventId}`);
        const { status, ...fields } = patch;
        // Strictly later than before, so a reader asking "modified at or after" never misses it.
        const now = new Date(
          Math.max(this.#clock.now().getTime(), current.lastModifiedAt.getTime() + 1),
        );
        const details: EventDetails = { ...current.details, ...fields };
        await this.#checkEvent(details);
        const { version, ...rest } = current;
        return this.#repos.events.update(eventId, version, {
          ...rest,
          status: status ?? current.status,
          details,
          ...derived(details, now),
        });
      },
      { attempts: CAS_ATTEMPTS },
    );
  }

  /** The events (of a venue, or all), by date. */
  listEvents(venueId: string | undefined): Promise<EventRecord[]> {
    return this.#repos.events.find(venueId === undefined ? {} : { venueId }, {
      sort: { startsAt: 1 },
    });
  }

  async createLogo(input: NewLogo): Promise<string> {
    if (Buffer.byteLength(input.data, 'base64') > 1_048_576)
      throw badRequest('a logo is at most 1 MB');
    const id = input.logoId ?? this.#ids.id('L');
    await this.#insert(
      () => this.#repos.logos.insert({ id, format: input.format, data: input.data }),
      `logo ${id}`,
    );
    return id;
  }

  async createTaxPlan(input: NewTaxPlan): Promise<string> {
    const id = input.taxPlanId ?? this.#ids.id('T');
    await this.#insert(
      () => this.#repos.taxPlans.insert({ id, name: input.name, rates: input.rates }),
      `tax plan ${id}`,
    );
    return id;
  }

  async #checkEvent(event: EventDetails): Promise<void> {
    const manifest = await this.#repos.manifests.get(event.manifestId);
    if (manifest === undefined) throw badRequest(`unknown manifest ${event.manifestId}`);
    const problems = eventProblems(event, manifest.manifest);
    for (const logo of event.logos ?? [])
      if ((await this.#repos.logos.get(logo.id)) === undefined)
        problems.push(`logos: unknown logo ${logo.id}`);
    for (const component of event.priceComponents ?? [])
      if ((await this.#repos.taxPlans.get(component.taxPlanId)) === undefined)
        problems.push(`price_components: unknown tax plan ${component.taxPlanId}`);
    if (Number.isNaN(Date.parse(event.dateTime))) problems.push('date_time: not a date-time');
    if (problems.length > 0) throw badRequest(problems.slice(0, 10).join('; '));
  }

  async #insert(write: () => Promise<unknown>, what: string): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (errorKindOf(error) === 'already_exists') throw badRequest(`${what} already exists`);
      throw error;
    }
  }
}

function buildArea(input: NewArea): Area {
  const { rows, seats: given, capacity, ...rest } = input;
  if (input.generalAdmission) {
    if (capacity === undefined) throw badRequest(`area ${input.id}: capacity is required`);
    if (given !== undefined || rows !== undefined)
      throw badRequest(`area ${input.id}: general admission has no seats`);
    return { ...rest, capacity };
  }
  if ((given === undefined) === (rows === undefined))
    throw badRequest(`area ${input.id}: give seats or rows (one of them)`);
  const seats =
    given ??
    rows!.flatMap((row) =>
      Array.from({ length: row.seats }, (_, i) => ({
        id: `${input.id}-${row.row}-${i + 1}`,
        row: row.row,
        number: String(i + 1),
      })),
    );
  if (capacity !== undefined && capacity !== seats.length)
    throw badRequest(`area ${input.id}: capacity must equal the number of seats`);
  if (seats.length > 100_000) throw badRequest(`area ${input.id}: at most 100,000 seats`);
  return { ...rest, capacity: seats.length, seats };
}

function defaultsFor(venue: VenueRecord) {
  return {
    organization: { promoterId: 'partner-reference', promoterName: 'Partner Reference' },
    genres: [],
    dateTimeProperties: { dateHidden: false, timeHidden: false },
    visibility: { defaultVisibility: 'VISIBLE' as const },
    timezone: venue.timezone,
  };
}

/** What listing and sorting need, beside the details; `lastModifiedAt` is the change's time. */
function derived(details: EventDetails, lastModifiedAt: Date) {
  return {
    lastModifiedAt,
    startsAt: new Date(details.dateTime),
    sortName: displayName(details).toLowerCase(),
  };
}
