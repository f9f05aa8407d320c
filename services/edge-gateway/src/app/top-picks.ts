/**
 * The edge's port to cart's TopPicksService: top picks under a fan session (public
 * `/top-picks/v1`) and resale listings (admin API). Implemented by adapters/top-picks-client.ts over
 * gRPC and by fakes in tests. Amounts of the public answer are numbers in the currency's major unit;
 * amounts of the admin API are integers in minor units.
 */

export interface TopPicksQuery {
  appId: string;
  eventId: string;
  /** `X-PLATFORM-SESSION-SID`; `''` when absent. */
  fanSessionId: string;
  quantity: number;
  ticketTypeId: string;
  priceLevelIds: string[];
  areaIds: string[];
  sections: string[];
  /** Decimal texts of `prices=min,max`; `''` = no bound. */
  priceMin: string;
  priceMax: string;
  /** `selection=resale` (or `Any`): resale listings too. */
  includeResale: boolean;
  page: number;
  size: number;
}

export interface TopPicksCharge {
  reason: string;
  type: string;
  amount: number;
  fee_type: string;
}

export interface TopPicksOffer {
  offerId: string;
  name: string;
  ticketTypeId: string;
  priceLevelId: string;
  description: string;
  currency: string;
  faceValue: number;
  totalPrice: number;
  charges: TopPicksCharge[];
  limit: { min: number; max: number };
  promotions: never[];
  protected: boolean;
  inventoryType: 'PRIMARY' | 'RESALE';
  listingNotes?: {
    deliveryDate?: string;
    deliveryMethod: string;
    deliveryDescription: string;
    sellerNotes: string;
  };
}

export interface TopPick {
  type: 'seats' | 'general-seating';
  quality: number;
  area: { id: string; name: string; description: string };
  descriptions: string[];
  section: string;
  selection: 'standard' | 'resale';
  row?: string;
  snapshotImageUrl: null;
  listingDetails?: { location: string; estimatedDeliveryDate?: string };
  offers: string[];
  seats?: string[];
}

export interface TopPicksEventDetails {
  id: string;
  granularPricing: boolean;
  secureTixEnabled: boolean;
  allInclusivePricing: boolean;
  venueMapUrl: string | null;
  venueMapWithLabelsUrl: string | null;
  listingsDisclaimer: string;
  transfer: { eligible: boolean; explanation: string };
  agreements: { name: string; locale: string; text: string; type: string; agreement_url: string }[];
  importantInformation: {
    buttonText: string;
    linkText: string;
    secondaryLinkText: string;
    linkUrl: string;
    secondaryLinkUrl: string;
    description: string;
    title: string;
  } | null;
}

/** The top picks result as the public API shows it (its field names). */
export interface TopPicksDocument {
  fanSession: {
    resaleSid: { sessionId: string; sessionStartTime: number; sessionExpireTime: number };
  };
  messages: string[];
  page: { number: number; size: number; totalElements: number; totalPages: number };
  picks: TopPick[];
  _embedded: { offer: TopPicksOffer[] };
  eventDetails: TopPicksEventDetails;
}

export type ResaleListingState = 'LISTED' | 'HELD' | 'SOLD' | 'WITHDRAWN';

export interface AdminMoney {
  /** Integer, minor units of `currency` (2550 = 25.50 EUR). */
  amount: number;
  currency: string;
}

export interface ResaleListingRecord {
  id: string;
  eventId: string;
  orderId: string;
  ticketIds: string[];
  price: AdminMoney;
  faceValue: AdminMoney;
  areaId: string;
  section: string;
  row: string;
  seats: string[];
  generalAdmission: boolean;
  priceLevelId: string;
  priceTypeId: string;
  state: ResaleListingState;
  holdCartId?: string;
  holdExpiresAt?: string;
  soldOrderId?: string;
  sellerNotes: string;
  sellerAppId: string;
  createdAt?: string;
  updatedAt?: string;
}

export interface NewResaleListing {
  orderId: string;
  ticketIds: string[];
  price: AdminMoney;
  sellerNotes: string;
}

export interface ResaleListingQuery {
  eventId: string;
  activeOnly: boolean;
  offset: number;
  limit: number;
}

export interface TopPicksBackend {
  /** Kind `not_found` for an event not sold through the platform; `invalid_argument` for bad input. */
  getTopPicks(query: TopPicksQuery): Promise<TopPicksDocument>;
  /** Kind `not_found` (order), `failed_precondition` (not confirmed, not its ticket, already listed). */
  createListing(input: NewResaleListing): Promise<ResaleListingRecord>;
  listListings(query: ResaleListingQuery): Promise<{
    listings: ResaleListingRecord[];
    page: { offset: number; limit: number; total: number };
  }>;
  /** Kind `not_found` when unknown. */
  getListing(id: string): Promise<ResaleListingRecord>;
  /** Kind `not_found`; `failed_precondition` when held or sold. Withdrawn already: answered as is. */
  withdrawListing(id: string): Promise<ResaleListingRecord>;
}
