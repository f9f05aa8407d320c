import type { EventDetails, EventStatus } from '../domain/event.js';
import type { Seat, TaxRate } from '../domain/model.js';

/**
 * What the back office's use cases take, parsed by ports/http/admin-wire.ts from the
 * `/admin/v1` bodies. Ids are generated unless given (seeds and tests give them for stable ids).
 */

/** An area: `seats` in order, or `rows` of numbered seats (ids `<area>-<row>-<n>`), or GA. */
export interface NewArea {
  id: string;
  name: string;
  levelId?: string;
  sectionId?: string;
  priceLevelId: string;
  generalAdmission: boolean;
  /** General admission: its places. Reserved seating: optional, must equal the seats. */
  capacity?: number;
  seats?: Seat[];
  rows?: Array<{ row: string; seats: number }>;
}

export interface NewManifest {
  manifestId?: string;
  name: string;
  levels: Array<{ id: string; name: string; position: number }>;
  sections: Array<{ id: string; name: string }>;
  priceLevels: Array<{ id: string; name: string }>;
  areas: NewArea[];
}

export interface NewVenue {
  venueId?: string;
  name: string;
  city: string;
  country: string;
  timezone: string;
  manifests: NewManifest[];
}

/** Fields with a default when not given (the venue's time zone, the partner as promoter, …). */
type Defaulted = 'organization' | 'genres' | 'dateTimeProperties' | 'visibility' | 'timezone';

/** The fields of an event the back office sets (never the venue's facts, set from the venue). */
export type EventFields = Omit<EventDetails, 'manifestId' | 'venueInfo' | Defaulted> &
  Partial<Pick<EventDetails, Defaulted>>;

export interface NewEvent extends EventFields {
  eventId?: string;
  venueId: string;
  manifestId: string;
  /** Default ON_SALE. */
  status?: EventStatus;
}

/** Any of the fields but the ids, venue and manifest. */
export type EventPatch = Partial<EventFields> & { status?: EventStatus };

export interface NewLogo {
  logoId?: string;
  format: string;
  /** Base64, at most 1 MB decoded. */
  data: string;
}

export interface NewTaxPlan {
  taxPlanId?: string;
  name: string;
  rates: TaxRate[];
}
