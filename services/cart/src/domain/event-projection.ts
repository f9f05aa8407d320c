import type { SellableArea, SellableEvent } from './sellable-event.js';

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

/** The event part of a projection, as an `event-changed` state maps to it. */
export type ProjectedEvent = NonNullable<EventProjection['event']>;

/** An `availability-changed` record as the projection applies it. */
export interface AvailabilityUpdate {
  sequence: number;
  areas: SellableArea[];
  /** A partial synchronisation replaces the areas it lists; a full one replaces every area. */
  partial: boolean;
  observedAt?: Date;
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
  event: ProjectedEvent,
): EventProjection | undefined {
  const version = event.eventVersion;
  if (!current.removed && current.event && version <= current.eventVersion) return undefined;
  if (current.removed && version <= current.eventVersion) return undefined;
  return { ...current, event, eventVersion: version, removed: false };
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
  change: AvailabilityUpdate,
): EventProjection | undefined {
  if (change.sequence <= current.availabilitySequence) return undefined;
  const areas = change.areas;
  const merged = change.partial
    ? [...current.areas.filter((old) => !areas.some((a) => a.areaId === old.areaId)), ...areas]
    : areas;
  return {
    ...current,
    areas: merged,
    availabilitySequence: change.sequence,
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
