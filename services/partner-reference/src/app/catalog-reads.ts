import { Err, refused } from '../domain/errors.js';
import type { EventRecord } from '../domain/event.js';
import { availableIn, FREE } from '../domain/inventory.js';
import type { Area, LogoRecord, Manifest, PageOf, Seat, TaxPlanRecord } from '../domain/model.js';
import type { PartnerCore } from './partner-core.js';
import type { AvailabilityQuery, ListEventsQuery } from './requests.js';

/** An event of a listing: `isNew` when it was created at or after the listing's `since`. */
export interface EventListing {
  record: EventRecord;
  isNew: boolean;
}

/** The places of one area as they stand. */
export interface AreaAvailability {
  area: Area;
  available: number;
  unavailable: number;
  /** With detail `seats`, reserved seating only: the free seats. */
  availableSeats?: Seat[];
}

export interface Availability {
  eventId: string;
  /** The inventory's last change (a hold, release, order or cancel), not the event's. */
  changedAt: Date;
  areas: AreaAvailability[];
}

/** The events of a venue modified at or after `since`, a page of them. */
export async function listEvents(
  core: PartnerCore,
  query: ListEventsQuery,
): Promise<PageOf<EventListing>> {
  const { since, size, page } = query;
  if ((await core.repos.venues.get(query.venueId)) === undefined)
    throw refused(Err.INVALID_VENUE_ID, `unknown venue ${query.venueId}`);
  const filter = { venueId: query.venueId, lastModifiedAt: { $gte: since } };
  const [total, records] = await Promise.all([
    core.repos.events.count(filter),
    core.repos.events.find(filter, {
      sort:
        query.sort === 'NAME,DATE' ? { sortName: 1, startsAt: 1 } : { startsAt: 1, sortName: 1 },
      skip: page * size,
      limit: size,
    }),
  ]);
  return {
    items: records.map((record) => ({
      record,
      isNew: record.createdAt.getTime() >= since.getTime(),
    })),
    size,
    number: page,
    totalElements: total,
  };
}

export const getEvent = (core: PartnerCore, eventId: string): Promise<EventRecord> =>
  core.event(eventId);

export async function getManifest(core: PartnerCore, manifestId: string): Promise<Manifest> {
  return (await core.manifests.get(manifestId)).record.manifest;
}

export async function getLogo(core: PartnerCore, logoId: string): Promise<LogoRecord> {
  const logo = await core.repos.logos.get(logoId);
  if (logo === undefined) throw refused(Err.NOT_PROCESSED, `unknown logo ${logoId}`);
  return logo;
}

export async function getTaxPlan(core: PartnerCore, taxPlanId: string): Promise<TaxPlanRecord> {
  const plan = await core.repos.taxPlans.get(taxPlanId);
  if (plan === undefined) throw refused(Err.NOT_PROCESSED, `unknown tax plan ${taxPlanId}`);
  return plan;
}

/** The areas of an event (or the one of a level and section) with their free places. */
export async function availability(
  core: PartnerCore,
  query: AvailabilityQuery,
): Promise<Availability> {
  const { eventId, place } = query;
  const record = await core.event(eventId);
  const manifest = await core.manifests.get(record.details.manifestId);
  const m = manifest.record.manifest;
  let areas = m.areas;
  if (place !== undefined) {
    if (!m.levels.some((level) => level.id === place.levelId))
      throw refused(Err.INVALID_LEVEL_ID, `unknown level ${place.levelId}`);
    if (!m.sections.some((section) => section.id === place.sectionId))
      throw refused(Err.INVALID_SECTION_ID, `unknown section ${place.sectionId}`);
    areas = areas.filter(
      (area) => area.levelId === place.levelId && area.sectionId === place.sectionId,
    );
    if (areas.length === 0)
      throw refused(Err.INVALID_SECTION_ID, 'no area has this level and section');
  }
  const inventory = await core.queue.run(eventId, async () =>
    core.expireDue(await core.inventories.loadOrCreate(record.id, m.areas), core.clock.now()),
  );
  return {
    eventId,
    changedAt: inventory.updatedAt,
    areas: areas.map((area) => {
      const stock = inventory.areas[manifest.areaIndex.get(area.id)!]!;
      const available = availableIn(stock);
      return {
        area,
        available,
        unavailable: stock.capacity - available,
        ...(query.detail === 'seats' && !area.generalAdmission
          ? { availableSeats: (area.seats ?? []).filter((_, i) => stock.seats[i] === FREE) }
          : {}),
      };
    }),
  };
}
