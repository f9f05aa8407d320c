import type { PartnerEvent } from '@marquee/partner-api';
import { eventFieldsFromShape, eventToShape, opt } from '../../adapters/partner-shapes.js';
import type {
  EventFields,
  EventPatch,
  NewArea,
  NewEvent,
  NewVenue,
} from '../../app/back-office-inputs.js';
import type { HealthState } from '../../app/partner-app.js';
import type { EventRecord } from '../../domain/event.js';
import type { VenueRecord } from '../../domain/model.js';
import type {
  AdminArea,
  CreateEventBody,
  CreateVenueBody,
  HealthDrillBody,
  PatchEventBody,
} from './admin-schemas.js';

/**
 * The back office's bodies (`/admin/v1`, snake_case like the 3P API) as the back office's inputs,
 * and its records as its answers. The bodies' schemas (admin-schemas.ts) have checked them.
 */

const areaFrom = (area: AdminArea): NewArea => ({
  id: area.id,
  name: area.name,
  ...opt('levelId', area.level_id),
  ...opt('sectionId', area.section_id),
  priceLevelId: area.price_level_id,
  generalAdmission: area.general_admission,
  ...opt('capacity', area.capacity),
  ...opt(
    'seats',
    area.seats?.map((s) => ({ id: s.id, row: s.row, number: s.number })),
  ),
  ...opt(
    'rows',
    area.rows?.map((r) => ({ row: r.row, seats: r.seats })),
  ),
});

export const newVenueFrom = (body: CreateVenueBody): NewVenue => ({
  ...opt('venueId', body.venue_id),
  name: body.name,
  city: body.city,
  country: body.country,
  timezone: body.timezone,
  manifests: body.manifests.map((m) => ({
    ...opt('manifestId', m.manifest_id),
    name: m.name,
    levels: m.levels.map((l) => ({ id: l.id, name: l.name, position: l.position })),
    sections: m.sections.map((s) => ({ id: s.id, name: s.name })),
    priceLevels: m.price_levels.map((p) => ({ id: p.id, name: p.name })),
    areas: m.areas.map(areaFrom),
  })),
});

/** The event fields of a body (the 3P API's own field names, so its event mapping serves). */
const eventFieldsFrom = (body: PatchEventBody): Partial<EventFields> => {
  const {
    manifestId: _m,
    venueInfo: _v,
    ...fields
  } = eventFieldsFromShape(body as Partial<PartnerEvent>);
  return fields;
};

export const newEventFrom = (body: CreateEventBody): NewEvent => {
  const { event_id, venue_id, manifest_id, status, ...fields } = body;
  return {
    ...(eventFieldsFrom(fields) as EventFields),
    ...opt('eventId', event_id),
    venueId: venue_id,
    manifestId: manifest_id,
    ...opt('status', status),
  };
};

export const eventPatchFrom = (body: PatchEventBody): EventPatch => {
  const { status, ...fields } = body;
  return { ...eventFieldsFrom(fields), ...opt('status', status) };
};

/** The healthcheck drill: the message defaults to the meaning of the id. */
export const healthFrom = (body: HealthDrillBody): HealthState => ({
  id: body.id,
  message:
    body.message ??
    (body.id === 0
      ? 'OK'
      : body.id === 901
        ? 'Service not currently available'
        : 'Synchronization required'),
  ...opt('venuesToSync', body.venues_to_sync),
});

export const venuesToWire = (venues: VenueRecord[]) => ({
  venues: venues.map((v) => ({ venue_id: v.id, name: v.name, manifest_ids: v.manifestIds })),
});

export const adminEventToWire = (record: EventRecord) => ({
  event: eventToShape(record),
  status: record.status,
});

export const adminEventsToWire = (records: EventRecord[]) => ({
  events: records.map((r) => ({ event_id: r.id, status: r.status, event: eventToShape(r) })),
});
