import type { Manifest, ManifestArea, PartnerEvent } from '@marquee/partner-api';
import { displayName, eventProblems, manifestProblems } from '../domain/event.js';
import type { EventRecord, VenueRecord } from '../domain/model.js';
import type {
  CreateEventBody,
  CreateLogoBody,
  CreateTaxPlanBody,
  CreateVenueBody,
  PatchEventBody,
} from './admin-schemas.js';
import { errorKindOf, retryingConflicts, type Clock } from '@marquee/platform/kernel';
import type { IdGenerator, PartnerRepositories } from './ports.js';

/** A refused back-office request: `{error: {code, message}}` with its status. */
export class AdminError extends Error {
  readonly status: 400 | 404;
  readonly code: string;

  constructor(status: 400 | 404, code: string, message: string) {
    super(message);
    this.name = 'AdminError';
    this.status = status;
    this.code = code;
  }
}

const badRequest = (message: string) => new AdminError(400, 'invalid_argument', message);

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

  async createVenue(body: CreateVenueBody): Promise<{ venue_id: string; manifest_ids: string[] }> {
    const venueId = body.venue_id ?? this.#ids.id('V');
    if ((await this.#repos.venues.get(venueId)) !== undefined)
      throw badRequest(`venue ${venueId} already exists`);
    const manifests: Manifest[] = body.manifests.map((input) => ({
      manifest_id: input.manifest_id ?? this.#ids.id('M'),
      venue_id: venueId,
      name: input.name,
      levels: input.levels,
      sections: input.sections,
      price_levels: input.price_levels,
      areas: input.areas.map(buildArea),
    }));
    const problems = manifests.flatMap((m) => manifestProblems(m).map((p) => `${m.name}: ${p}`));
    if (new Set(manifests.map((m) => m.manifest_id)).size !== manifests.length)
      problems.push('manifests: duplicate manifest_id');
    for (const m of manifests)
      if ((await this.#repos.manifests.get(m.manifest_id)) !== undefined)
        problems.push(`manifest ${m.manifest_id} already exists`);
    if (problems.length > 0) throw badRequest(problems.slice(0, 10).join('; '));
    // Manifests first: a venue is only listed once everything it names exists.
    for (const manifest of manifests)
      await this.#repos.manifests.insert({ id: manifest.manifest_id, venueId, manifest });
    const venue: Omit<VenueRecord, 'version'> = {
      id: venueId,
      name: body.name,
      city: body.city,
      country: body.country,
      timezone: body.timezone,
      manifestIds: manifests.map((m) => m.manifest_id),
      createdAt: this.#clock.now(),
    };
    await this.#insert(() => this.#repos.venues.insert(venue), `venue ${venueId}`);
    return { venue_id: venueId, manifest_ids: venue.manifestIds };
  }

  async listVenues(): Promise<{
    venues: Array<{ venue_id: string; name: string; manifest_ids: string[] }>;
  }> {
    const venues = await this.#repos.venues.find({}, { sort: { createdAt: 1 } });
    return {
      venues: venues.map((v) => ({ venue_id: v.id, name: v.name, manifest_ids: v.manifestIds })),
    };
  }

  async createEvent(body: CreateEventBody): Promise<{ event_id: string }> {
    const venue = await this.#repos.venues.get(body.venue_id);
    if (venue === undefined) throw badRequest(`unknown venue ${body.venue_id}`);
    if (!venue.manifestIds.includes(body.manifest_id))
      throw badRequest(`manifest ${body.manifest_id} is not a manifest of venue ${venue.id}`);
    const eventId = body.event_id ?? this.#ids.id('E');
    const now = this.#clock.now();
    const { event_id: _id, venue_id: _venue, manifest_id: _manifest, status, ...fields } = body;
    const event: PartnerEvent = {
      ...defaultsFor(venue),
      ...fields,
      timezone: fields.timezone ?? venue.timezone,
      event_id: eventId,
      venue_id: venue.id,
      venue_info: { name: venue.name, city: venue.city, country: venue.country },
      manifest_id: body.manifest_id,
      last_modification: now.toISOString(),
    };
    await this.#checkEvent(event);
    const record: Omit<EventRecord, 'version'> = {
      id: eventId,
      venueId: venue.id,
      status: status ?? 'ON_SALE',
      event,
      createdAt: now,
      ...derived(event),
    };
    await this.#insert(() => this.#repos.events.insert(record), `event ${eventId}`);
    return { event_id: eventId };
  }

  async patchEvent(
    eventId: string,
    patch: PatchEventBody,
  ): Promise<{ event: PartnerEvent; status: string }> {
    return retryingConflicts(
      async () => {
        const current = await this.#repos.events.get(eventId);
        if (current === undefined)
          throw new AdminError(404, 'not_found', `unknown event ${eventId}`);
        const { status, ...fields } = patch;
        const previous = Date.parse(current.event.last_modification);
        // Strictly later than before, so a reader asking "modified at or after" never misses it.
        const now = new Date(Math.max(this.#clock.now().getTime(), previous + 1));
        const event: PartnerEvent = {
          ...current.event,
          ...fields,
          last_modification: now.toISOString(),
        };
        await this.#checkEvent(event);
        const { version, ...rest } = current;
        const next = await this.#repos.events.update(eventId, version, {
          ...rest,
          status: status ?? current.status,
          event,
          ...derived(event),
        });
        return { event: next.event, status: next.status };
      },
      { attempts: CAS_ATTEMPTS },
    );
  }

  async listEvents(venueId: string | undefined): Promise<{
    events: Array<{ event_id: string; status: string; event: PartnerEvent }>;
  }> {
    const records = await this.#repos.events.find(venueId === undefined ? {} : { venueId }, {
      sort: { startsAt: 1 },
    });
    return {
      events: records.map((r) => ({ event_id: r.id, status: r.status, event: r.event })),
    };
  }

  async createLogo(body: CreateLogoBody): Promise<{ logo_id: string }> {
    if (Buffer.byteLength(body.data, 'base64') > 1_048_576)
      throw badRequest('a logo is at most 1 MB');
    const id = body.logo_id ?? this.#ids.id('L');
    await this.#insert(
      () => this.#repos.logos.insert({ id, format: body.format, data: body.data }),
      `logo ${id}`,
    );
    return { logo_id: id };
  }

  async createTaxPlan(body: CreateTaxPlanBody): Promise<{ tax_plan_id: string }> {
    const id = body.tax_plan_id ?? this.#ids.id('T');
    await this.#insert(
      () => this.#repos.taxPlans.insert({ id, name: body.name, rates: body.rates }),
      `tax plan ${id}`,
    );
    return { tax_plan_id: id };
  }

  async #checkEvent(event: PartnerEvent): Promise<void> {
    const manifest = await this.#repos.manifests.get(event.manifest_id);
    if (manifest === undefined) throw badRequest(`unknown manifest ${event.manifest_id}`);
    const problems = eventProblems(event, manifest.manifest);
    for (const logo of event.logos ?? [])
      if ((await this.#repos.logos.get(logo.id)) === undefined)
        problems.push(`logos: unknown logo ${logo.id}`);
    for (const component of event.price_components ?? [])
      if ((await this.#repos.taxPlans.get(component.tax_plan_id)) === undefined)
        problems.push(`price_components: unknown tax plan ${component.tax_plan_id}`);
    if (Number.isNaN(Date.parse(event.date_time))) problems.push('date_time: not a date-time');
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

function buildArea(input: CreateVenueBody['manifests'][number]['areas'][number]): ManifestArea {
  const { rows, seats: given, capacity, ...rest } = input;
  if (input.general_admission) {
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
    organization_info: { promoter_id: 'partner-reference', promoter_name: 'Partner Reference' },
    genre_info: [],
    date_time_properties: { date_hidden: false, time_hidden: false },
    visibility: { default_visibility: 'VISIBLE' as const },
    timezone: venue.timezone,
  };
}

function derived(event: PartnerEvent) {
  return {
    lastModifiedAt: new Date(event.last_modification),
    startsAt: new Date(event.date_time),
    sortName: displayName(event).toLowerCase(),
  };
}
