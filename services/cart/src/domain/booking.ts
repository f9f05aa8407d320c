/**
 * What a cart asks the inventory for and what it gets back: the lines of a booking and the tickets
 * held for it. Kept apart from the cart so that pricing and reserve planning need not import the
 * cart (and the cart them) in a circle.
 */

/** One line asked of the partner (a `BookingLine` of ConnectorService). */
export interface BookingLine {
  /** The partner's area id; `''` = best available. */
  areaId: string;
  /** Price level id; `''` = any. */
  priceLevelId: string;
  /** Price type (ticket type) id. */
  priceTypeId: string;
  quantity: number;
  /** Specific seats; empty = best available. */
  seatIds: string[];
  /** The price type's password, encrypted at rest (it is a secret); absent when none. */
  accessCodeSealed?: SealedSecret;
}

/** AES-256-GCM output (see adapters/secret-box.ts); `kid` names the key, absent on older ones. */
export interface SealedSecret {
  kid?: string;
  iv: string;
  tag: string;
  data: string;
}

/** A ticket the partner (or the sandbox inventory) holds for the cart. */
export interface HeldTicket {
  ticketId: string;
  areaId: string;
  section: string;
  row: string;
  /** Seat label; `''` for general admission. */
  seat: string;
  priceLevelId: string;
  priceTypeId: string;
  /** Face value in minor units. */
  faceValueMinor: number;
  generalAdmission: boolean;
  /** Area description shown with the line. */
  areaDescription: string;
  /** What the buyer is told about the resale listing the ticket comes from; absent for primary. */
  resale?: ResaleDetails;
}

/** What a cart shows of a resale listing it holds (the partner cart's resale item fields). */
export interface ResaleDetails {
  /** Where the seats are ("Section 101, Row C, Seats 4-5"): `listing_details.location`. */
  location: string;
  /** The seller's notes: `listing_notes.seller_notes`. */
  sellerNotes: string;
  /** Face value per ticket of the original sale, minor units of the cart's currency. */
  originalFaceValueMinor: number;
  /**
   * The day the seller had the tickets (`YYYY-MM-DD`, UTC): the listing's creation, since only
   * tickets of confirmed orders are listed.
   */
  inHandDate: string;
}
