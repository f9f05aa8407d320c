import type { Money } from '@marquee/platform/money';
import type { ResaleDetails } from '../../domain/booking.js';
import type { FanSession, SessionOutcome } from '../domain/fan-session.js';
import type { PageOf, Pick, PicksEvent, ResaleOffer } from '../domain/picks.js';
import type {
  AdmittedSeats,
  Clock,
  FanSessionRepository,
  ListingRepository,
  LiveSeats,
  OrderLookup,
  OwnershipRepository,
  PicksEventSource,
  TopPicksIds,
  TopPicksLog,
} from './ports.js';

/** What TopPicksApp is asked, what it answers and what it is built on. */

/**
 * The picks of a query, and what their answer is made of: the event (its offers and details) and
 * the resale offers priced for the session. The answer's offers and copy are the ports' to build.
 */
export interface TopPicksResult {
  session: FanSession;
  outcome: SessionOutcome;
  picks: PageOf<Pick>;
  event: PicksEvent;
  resale: ResaleOffer[];
  includeResale: boolean;
  now: Date;
}

export interface TopPicksRequest {
  appId: string;
  eventId: string;
  fanSessionId: string;
  quantity: number;
  ticketTypeId: string;
  priceLevelIds: string[];
  areaIds: string[];
  sections: string[];
  priceMin: string;
  priceMax: string;
  includeResale: boolean;
  page: number;
  size: number;
}

/** A listing held for a cart, as the cart's reserve records it. */
export interface HeldListing {
  listingId: string;
  quantity: number;
  ticketIds: string[];
  areaId: string;
  section: string;
  row: string;
  seats: string[];
  generalAdmission: boolean;
  priceLevelId: string;
  priceTypeId: string;
  /** What the buyer pays per ticket. */
  unitPrice: Money;
  faceValue: Money;
  sellerNotes: string;
  /** What the cart shows of the listing. */
  details: ResaleDetails;
}

/** A ticket that changed owner with a sale. */
export interface ResoldTicket {
  ticketId: string;
  listingId: string;
  /** The order that held the ticket before the sale: its ticket is void now. */
  previousOrderId: string;
}

export interface NewListing {
  orderId: string;
  ticketIds: string[];
  price: Money;
  sellerNotes: string;
}

export interface TopPicksDeps {
  sessions: FanSessionRepository;
  listings: ListingRepository;
  ownership: OwnershipRepository;
  events: PicksEventSource;
  orders: OrderLookup;
  liveSeats?: LiveSeats;
  /** Which seats a gate admitted (secure-entry): such seats are never listed. */
  admittedSeats: AdmittedSeats;
  clock: Clock;
  ids: TopPicksIds;
  log: TopPicksLog;
  settings: { sessionTtlMs: number; resaleHoldMs: number };
}
