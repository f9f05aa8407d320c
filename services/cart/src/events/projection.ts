import type {
  AvailabilityChanged,
  Event,
  EventStatus as ProtoEventStatus,
} from '@marquee/proto/catalog/v1';
import type { LocalizedString } from '@marquee/proto/common/v1';
import type {
  SellableArea,
  SellableEvent,
  SellableEventStatus,
  SellablePricePeriod,
} from '../domain/sellable-event.js';

/**
 * The stored projection of one event: the event's state (absent until its `event-changed` arrived,
 * and after a tombstone) and its availability (which may arrive first). `availabilitySequence` is
 * the last `availability-changed` sequence applied.
 */
export interface EventProjection {
  id: string;
  event?: Omit<SellableEvent, 'prices' | 'areas' | 'totalAvailable' | 'availabilityObservedAt'>;
  /** Highest event version seen, kept across a tombstone so a stale redelivery cannot resurrect it. */
  eventVersion: number;
  removed: boolean;
  areas: SellableArea[];
  availabilitySequence: number;
  availabilityObservedAt?: Date;
}

const STATUS: Record<string, SellableEventStatus> = {
  EVENT_STATUS_ONSALE: 'ONSALE',
  EVENT_STATUS_OFFSALE: 'OFFSALE',
  EVENT_STATUS_CANCELLED: 'CANCELLED',
  EVENT_STATUS_POSTPONED: 'POSTPONED',
  EVENT_STATUS_RESCHEDULED: 'RESCHEDULED',
};

/** The text of a locale map: en-us (any case), then en, then the first locale; `''` when empty. */
export function pickText(text: LocalizedString | undefined): string {
  const values = text?.values ?? {};
  const entries = Object.entries(values);
  const find = (locale: string) => entries.find(([k]) => k.toLowerCase() === locale)?.[1];
  return find('en-us') ?? find('en') ?? entries[0]?.[1] ?? '';
}

function countryOf(event: Event): string {
  const location = event.location;
  if (location?.$case === 'place') return location.value.country?.countryCode.toUpperCase() ?? '';
  return '';
}

/** An `event-changed` state as the event part of the projection. Pure. */
export function toProjectedEvent(event: Event): NonNullable<EventProjection['event']> {
  const origin =
    event.origin?.kind?.$case === 'partnerImport' ? event.origin.kind.value : undefined;
  const ticketing = origin ? event.ticketing : undefined;
  const currency = ticketing?.currency ?? '';
  const periods: SellablePricePeriod[] = (ticketing?.pricePeriods ?? []).map((period) => ({
    id: period.id,
    startsAt: period.startDateTime ?? new Date(0),
    endsAt: period.endDateTime ?? new Date(8_640_000_000_000_000),
    prices: period.prices
      .filter((p) => !p.amount?.currency || p.amount.currency === currency)
      .map((p) => ({
        priceLevelId: p.priceLevelId,
        priceTypeId: p.priceTypeId,
        amountMinor: Number(p.amount?.amountMinor ?? 0),
      })),
  }));
  const sale = event.sales?.publicSale;
  const start = event.dates?.start?.dateTime;
  return {
    id: event.id,
    eventVersion: Number(event.version),
    partnerId: origin?.partnerId ?? '',
    partnerEventId: origin?.partnerEventId ?? '',
    name: pickText(event.names),
    timezone: event.dates?.timezone ?? '',
    countryCode: countryOf(event),
    currency,
    status: STATUS[event.status as ProtoEventStatus] ?? 'UNSPECIFIED',
    active: event.active,
    ...(start ? { startsAt: start } : {}),
    ...(sale?.startDateTime && !sale.startTbd ? { onSaleFrom: sale.startDateTime } : {}),
    ...(sale?.endDateTime ? { onSaleUntil: sale.endDateTime } : {}),
    secureEntryEnabled: ticketing?.secureEntryEnabled ?? false,
    ticketLimit: ticketing?.maximumTicketsQuantity ?? 0,
    priceLevels: (ticketing?.priceLevels ?? []).map((level) => ({
      id: level.id,
      name: pickText(level.names),
      description: pickText(level.descriptions),
    })),
    priceTypes: (ticketing?.priceTypes ?? []).map((type) => ({
      id: type.id,
      name: pickText(type.names),
      description: pickText(type.descriptions),
      regular: type.regular,
      accessCodeRequired: type.accessCodeRequired,
    })),
    pricePeriods: periods,
  };
}

/** An empty projection of an event nothing is known about yet. */
export const emptyProjection = (id: string): EventProjection => ({
  id,
  eventVersion: 0,
  removed: false,
  areas: [],
  availabilitySequence: 0,
});

/**
 * Applies an `event-changed` state. Returns `undefined` when the state is not newer than the one
 * held (redelivery, or an older record replayed after a newer one): idempotent and order-safe.
 */
export function applyEventChanged(
  current: EventProjection,
  event: Event,
): EventProjection | undefined {
  const version = Number(event.version);
  if (!current.removed && current.event && version <= current.eventVersion) return undefined;
  if (current.removed && version <= current.eventVersion) return undefined;
  return { ...current, event: toProjectedEvent(event), eventVersion: version, removed: false };
}

/** Applies a tombstone: the event is gone; its version is kept so older states stay dropped. */
export function applyEventDeleted(current: EventProjection): EventProjection | undefined {
  if (current.removed) return undefined;
  const { event: _event, ...rest } = current;
  return { ...rest, removed: true };
}

/**
 * Applies an `availability-changed` record. Records whose sequence is not greater than the last one
 * applied are dropped (`undefined`). A full synchronisation replaces every area; a partial one
 * replaces the areas it lists.
 */
export function applyAvailabilityChanged(
  current: EventProjection,
  change: AvailabilityChanged,
): EventProjection | undefined {
  const sequence = Number(change.sequence);
  if (sequence <= current.availabilitySequence) return undefined;
  const areas: SellableArea[] = change.areas.map((a) => ({
    areaId: a.areaId,
    levelId: a.levelId,
    sectionId: a.sectionId,
    priceLevelId: a.priceLevelId,
    generalAdmission: a.generalAdmission,
    available: a.available,
    unavailable: a.unavailable,
  }));
  const partial = change.scope === 'SYNC_SCOPE_PARTIAL';
  const merged = partial
    ? [...current.areas.filter((old) => !areas.some((a) => a.areaId === old.areaId)), ...areas]
    : areas;
  return {
    ...current,
    areas: merged,
    availabilitySequence: sequence,
    ...(change.observedAt ? { availabilityObservedAt: change.observedAt } : {}),
  };
}

/**
 * What of `held` (the projection in memory) is newer than `stored` (the durable copy): the event
 * part by version (a tombstone of the same version is newer than the state it removed), the areas
 * by availability sequence. `undefined` when nothing is newer, so a write-behind never takes a
 * durable copy backwards, whichever replica wrote it last.
 */
export function newerProjection(
  stored: EventProjection,
  held: EventProjection,
): EventProjection | undefined {
  const eventNewer =
    held.eventVersion > stored.eventVersion ||
    (held.eventVersion === stored.eventVersion && held.removed && !stored.removed);
  const areasNewer = held.availabilitySequence > stored.availabilitySequence;
  if (!eventNewer && !areasNewer) return undefined;
  const eventPart = eventNewer ? held : stored;
  const areaPart = areasNewer ? held : stored;
  return {
    id: stored.id,
    ...(eventPart.event ? { event: eventPart.event } : {}),
    eventVersion: eventPart.eventVersion,
    removed: eventPart.removed,
    areas: areaPart.areas,
    availabilitySequence: areaPart.availabilitySequence,
    ...(areaPart.availabilityObservedAt
      ? { availabilityObservedAt: areaPart.availabilityObservedAt }
      : {}),
  };
}
