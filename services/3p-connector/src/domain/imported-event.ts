import type { DiscoveryEvent } from './discovery-event.js';

/**
 * A partner event the connector imported: the platform id it was given once, the partner's ids,
 * the discovery state last published on `event-changed`, the access codes of its price types (never
 * published) and the per-event availability sequence (collection `imported_events`).
 */
export interface ImportedEvent {
  /** Platform event id (15 alphanumeric characters). */
  id: string;
  /** Storage version (moves with availability writes too; the event's own is `event.version`). */
  version: number;
  partnerId: string;
  partnerEventId: string;
  partnerVenueId: string;
  /** The partner's `last_modification` of the imported state. */
  lastModification: Date;
  /** The partner's status string (`ON_SALE`, `CANCELED`, ...). */
  partnerStatus: string;
  manifestId: string;
  accessCodes: { priceTypeId: string; code: string }[];
  /** Whole discovery state, as published. */
  event: DiscoveryEvent;
  /** Last `availability-changed` sequence given for this event. */
  availabilitySequence: number;
  /**
   * The newest `last_modification` of the partner's availability answers read so far: what the
   * partner reports there (partner-reference: its inventory's update time, moved by every sale),
   * compared with the next answer's to decide whether to re-read the event. Absent until the first
   * availability read.
   */
  availabilityModification?: Date;
  createdAt: Date;
  updatedAt: Date;
}
