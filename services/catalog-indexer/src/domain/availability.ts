/** Tickets available in one area, as the last synchronisation that listed the area counted them. */
export interface AreaCount {
  /** The partner's area id (or `level/section` when the partner gave none). */
  areaId: string;
  available: number;
}

/**
 * What the catalog knows of one event's availability (`availability-changed`, per event id). Kept
 * whether or not the event itself is known yet: messages of the two topics arrive in any order.
 */
export interface AvailabilityRecord {
  /** The platform event id (the record key). */
  eventId: string;
  /** `sequence` of the last synchronisation applied: only a greater one applies. */
  sequence: number;
  /** When the partner answered the last synchronisation applied. */
  observedAt: Date | undefined;
  /** A full synchronisation has been applied: the total is then the event's whole availability. */
  fullSync: boolean;
  /** Tickets available in the whole event, as far as the synchronisations applied tell. */
  totalAvailable: number;
  /** Per-area counts, by area id. */
  areas: AreaCount[];
}

/** The availability records of the read model (port; memory and Mongo adapters, one contract). */
export interface AvailabilityRecordRepository {
  get(eventId: string): Promise<AvailabilityRecord | undefined>;
  /**
   * Stores `record` unless the one held has an equal or greater sequence (then nothing is written);
   * resolves whether it was stored. A redelivery is therefore a no-op, and an older message never
   * overwrites a newer one, even one written since the caller read.
   */
  put(record: AvailabilityRecord): Promise<boolean>;
  /** Every record, in pages ordered by event id (the rebuild of the index). */
  scan(pageSize: number): AsyncIterable<AvailabilityRecord[]>;
}

/**
 * Which areas a synchronisation counted: `full` every area of the event (those it does not list
 * have none), `partial` only the areas it lists. `unspecified`: neither (a producer bug).
 */
export type AvailabilityScope = 'full' | 'partial' | 'unspecified';

/** Tickets available in one area, as a synchronisation counted them. */
export interface AreaAvailability {
  /** The partner's area id; empty when the partner gave none (then `level/section` names it). */
  areaId: string;
  levelId: string;
  sectionId: string;
  available: number;
}

/**
 * One synchronisation of an event's availability with the partner hosting its inventory (an
 * `availability-changed` message, adapters/proto/kafka-messages.ts).
 */
export interface AvailabilityUpdate {
  eventId: string;
  scope: AvailabilityScope;
  areas: AreaAvailability[];
  /** Tickets available in the whole event (read for a full synchronisation only). */
  totalAvailable: number;
  /** When the partner answered. */
  observedAt: Date | undefined;
  /** Orders the synchronisations of one event: only a greater one applies. */
  sequence: number;
}

/** An `availability-changed` message the catalog cannot apply: a producer bug (logged and skipped). */
export class InvalidAvailabilityError extends Error {
  readonly kind = 'invalid_argument';
}

const areaKey = (area: AreaAvailability) => area.areaId || `${area.levelId}/${area.sectionId}`;

/**
 * The record after `update`, or `undefined` when its sequence is not greater than the one held
 * (a redelivery, or an older synchronisation retried late). A full synchronisation replaces every
 * area and takes the update's total (areas it does not list have no availability); a partial one
 * replaces only the areas it lists, and the total moves by their difference, so an availability the
 * last full synchronisation counted without listing its area is kept.
 */
export function applyAvailability(
  held: AvailabilityRecord | undefined,
  update: AvailabilityUpdate,
): AvailabilityRecord | undefined {
  const full = update.scope === 'full';
  if (!full && update.scope !== 'partial') {
    throw new InvalidAvailabilityError(
      `availability-changed ${update.eventId}: scope ${update.scope} is neither full nor partial`,
    );
  }
  if (held && update.sequence <= held.sequence) return undefined;
  const listed = new Map<string, number>();
  for (const area of update.areas) listed.set(areaKey(area), Math.max(0, area.available));
  let areas: Map<string, number>;
  let totalAvailable: number;
  if (full || !held) {
    areas = listed;
    totalAvailable = full
      ? Math.max(0, update.totalAvailable)
      : [...listed.values()].reduce((sum, n) => sum + n, 0);
  } else {
    areas = new Map(held.areas.map((a) => [a.areaId, a.available]));
    totalAvailable = held.totalAvailable;
    for (const [areaId, available] of listed) {
      totalAvailable += available - (areas.get(areaId) ?? 0);
      areas.set(areaId, available);
    }
    totalAvailable = Math.max(0, totalAvailable);
  }
  return {
    eventId: update.eventId,
    sequence: update.sequence,
    observedAt: update.observedAt,
    fullSync: full || (held?.fullSync ?? false),
    totalAvailable,
    areas: [...areas]
      .map(([areaId, available]) => ({ areaId, available }))
      .sort((a, b) => (a.areaId < b.areaId ? -1 : a.areaId > b.areaId ? 1 : 0)),
  };
}

/**
 * Known to be sold out: nothing available after a full synchronisation, or every area with counts
 * at 0 (without a full synchronisation the total is the sum of the areas known).
 */
export function isSoldOut(record: AvailabilityRecord): boolean {
  return record.totalAvailable === 0 && (record.fullSync || record.areas.length > 0);
}
