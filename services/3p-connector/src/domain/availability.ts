/** A free seat of a reserved-seating area. */
export interface AvailableSeat {
  id: string;
  row: string;
  number: string;
}

/** One area's availability as the partner reported it (seats listed when asked for). */
export interface AreaAvailability {
  areaId: string;
  /** Empty when the partner gives none. */
  levelId: string;
  /** Empty when the partner gives none. */
  sectionId: string;
  priceLevelId: string;
  generalAdmission: boolean;
  available: number;
  unavailable: number;
  availableSeats: AvailableSeat[];
}

/** Every area of the event (`FULL`), or the areas of one level and section (`PARTIAL`). */
export type SyncScope = 'FULL' | 'PARTIAL';

/** An availability read of an imported event, as `availability-changed` announces it. */
export interface AvailabilitySnapshot {
  eventId: string;
  partnerId: string;
  partnerEventId: string;
  scope: SyncScope;
  areas: AreaAvailability[];
  totalAvailable: number;
  observedAt: Date;
  /** The event's availability sequence given to this read. */
  sequence: number;
}
