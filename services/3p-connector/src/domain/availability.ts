/** One area's availability as the partner reported it (seats listed when asked for). */
export interface AreaAvailability {
  areaId: string;
  levelId: string;
  sectionId: string;
  priceLevelId: string;
  generalAdmission: boolean;
  available: number;
  unavailable: number;
  availableSeats: { id: string; row: string; number: string }[];
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
