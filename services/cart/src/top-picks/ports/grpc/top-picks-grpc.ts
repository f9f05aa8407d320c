import { unary } from '@marquee/platform/grpc';
import {
  FanSessionOutcome,
  InventoryType,
  ListingState,
  PickSelection,
  PickType,
  TopPicksServiceService,
  type CreateResaleListingRequest,
  type GetResaleListingRequest,
  type GetTopPicksRequest,
  type GetTopPicksResponse,
  type ListResaleListingsRequest,
  type ListResaleListingsResponse,
  type PickOffer,
  type Pick as PickMessage,
  type ResaleListing as ListingMessage,
  type WithdrawResaleListingRequest,
} from '@marquee/proto/cart/v1';
import type { TopPicksApp, TopPicksResult } from '../../app/top-picks-app.js';
import { topPicksAnswer, type EmbeddedOffer } from './top-picks-answer.js';
import { invalid } from '../../domain/errors.js';
import type { ResaleListing } from '../../domain/listing.js';
import type { Pick } from '../../domain/picks.js';

export const DEFAULT_LISTING_PAGE = 50;
export const MAX_LISTING_PAGE = 500;

const OUTCOMES = {
  created: FanSessionOutcome.FAN_SESSION_OUTCOME_CREATED,
  active: FanSessionOutcome.FAN_SESSION_OUTCOME_ACTIVE,
  renewed: FanSessionOutcome.FAN_SESSION_OUTCOME_RENEWED,
} as const;

const STATES = {
  LISTED: ListingState.LISTING_STATE_LISTED,
  HELD: ListingState.LISTING_STATE_HELD,
  SOLD: ListingState.LISTING_STATE_SOLD,
  WITHDRAWN: ListingState.LISTING_STATE_WITHDRAWN,
} as const;

function toPickMessage(pick: Pick): PickMessage {
  return {
    type: pick.type === 'seats' ? PickType.PICK_TYPE_SEATS : PickType.PICK_TYPE_GENERAL_SEATING,
    quality: pick.quality,
    areaId: pick.area.id,
    areaName: pick.area.name,
    areaDescription: pick.area.description,
    descriptions: pick.descriptions,
    section: pick.section,
    inventoryType:
      pick.selection === 'resale'
        ? InventoryType.INVENTORY_TYPE_RESALE
        : InventoryType.INVENTORY_TYPE_PRIMARY,
    row: pick.row ?? '',
    offerIds: pick.offerIds,
    seats: pick.seats ?? [],
    ...(pick.listingDetails
      ? {
          listingDetails: {
            location: pick.listingDetails.location,
            estimatedDelivery: pick.listingDetails.estimatedDelivery,
          },
        }
      : {}),
    priceLevelId: pick.priceLevelId,
  };
}

function toOfferMessage(offer: EmbeddedOffer): PickOffer {
  return {
    offerId: offer.offerId,
    name: offer.name,
    ticketTypeId: offer.ticketTypeId,
    priceLevelId: offer.priceLevelId,
    description: offer.description,
    faceValue: offer.faceValue,
    totalPrice: offer.totalPrice,
    charges: offer.charges.map((c) => ({
      reason: c.reason,
      type: c.type,
      amount: c.amount,
      feeType: c.feeType,
    })),
    limitMin: offer.limit.min,
    limitMax: offer.limit.max,
    protected: offer.protected,
    inventoryType:
      offer.inventoryType === 'RESALE'
        ? InventoryType.INVENTORY_TYPE_RESALE
        : InventoryType.INVENTORY_TYPE_PRIMARY,
    ...(offer.listingNotes ? { listingNotes: offer.listingNotes } : {}),
  };
}

export function toTopPicksResponse(result: TopPicksResult): GetTopPicksResponse {
  const answer = topPicksAnswer(result);
  const d = answer.eventDetails;
  return {
    fanSession: {
      id: result.session.id,
      startedAt: result.session.startedAt,
      expiresAt: result.session.expiresAt,
      outcome: OUTCOMES[result.outcome],
    },
    picks: result.picks.items.map(toPickMessage),
    offers: answer.offers.map(toOfferMessage),
    eventDetails: {
      id: d.id,
      granularPricing: d.granularPricing,
      secureTixEnabled: d.secureTixEnabled,
      allInclusivePricing: d.allInclusivePricing,
      venueMapUrl: d.venueMapUrl,
      listingsDisclaimer: d.listingsDisclaimer,
      transferEligible: d.transfer.eligible,
      transferExplanation: d.transfer.explanation,
      agreements: d.agreements,
      ...(d.importantInformation
        ? {
            importantInformation: {
              title: d.importantInformation.title,
              description: d.importantInformation.description,
              buttonText: '',
              linkText: '',
              linkUrl: '',
              secondaryLinkText: '',
              secondaryLinkUrl: '',
            },
          }
        : {}),
      currency: d.currency,
      venueMapWithLabelsUrl: d.venueMapWithLabelsUrl,
    },
    page: result.picks.page,
    size: result.picks.size,
    totalElements: result.picks.totalElements,
    totalPages: result.picks.totalPages,
    messages: answer.messages,
  };
}

export function toListingMessage(listing: ResaleListing): ListingMessage {
  return {
    id: listing.id,
    eventId: listing.eventId,
    orderId: listing.orderId,
    ticketIds: listing.ticketIds,
    price: listing.price,
    faceValue: listing.faceValue,
    areaId: listing.areaId,
    section: listing.section,
    row: listing.row,
    seats: listing.seats,
    priceLevelId: listing.priceLevelId,
    priceTypeId: listing.priceTypeId,
    state: STATES[listing.state],
    holdCartId: listing.state === 'HELD' ? (listing.holdCartId ?? '') : '',
    ...(listing.state === 'HELD' && listing.holdExpiresAt
      ? { holdExpiresAt: listing.holdExpiresAt }
      : {}),
    soldOrderId: listing.soldOrderId ?? '',
    sellerNotes: listing.sellerNotes,
    createdAt: listing.createdAt,
    updatedAt: listing.updatedAt,
    sellerAppId: listing.sellerAppId,
    generalAdmission: listing.generalAdmission,
  };
}

/**
 * marquee.cart.v1.TopPicksService: maps messages and delegates to the app. Who may call it is
 * cart's ServiceDefinition's `callers` (the edge only).
 */
export function topPicksGrpc(app: TopPicksApp) {
  return {
    definition: TopPicksServiceService,
    implementation: {
      getTopPicks: unary(async (r: GetTopPicksRequest) =>
        toTopPicksResponse(
          await app.getTopPicks({
            appId: r.appId,
            eventId: r.eventId,
            fanSessionId: r.fanSessionId,
            quantity: r.quantity,
            ticketTypeId: r.ticketTypeId,
            priceLevelIds: r.priceLevelIds,
            areaIds: r.areaIds,
            sections: r.sections,
            priceMin: r.priceMin,
            priceMax: r.priceMax,
            includeResale: r.selection === PickSelection.PICK_SELECTION_ANY,
            page: r.page,
            size: r.size,
          }),
        ),
      ),
      createResaleListing: unary(async (r: CreateResaleListingRequest) => {
        if (!r.price) throw invalid('price is required');
        const listing = await app.createListing({
          orderId: r.orderId,
          ticketIds: r.ticketIds,
          price: r.price,
          sellerNotes: r.sellerNotes,
        });
        return { listing: toListingMessage(listing) };
      }),
      listResaleListings: unary(
        async (r: ListResaleListingsRequest): Promise<ListResaleListingsResponse> => {
          if (!r.eventId) throw invalid('eventId is required');
          const offset = Math.max(0, r.page?.offset ?? 0);
          const limit = Math.min(r.page?.limit || DEFAULT_LISTING_PAGE, MAX_LISTING_PAGE);
          const { listings, total } = await app.listListings({
            eventId: r.eventId,
            activeOnly: r.activeOnly,
            offset,
            limit,
          });
          return { listings: listings.map(toListingMessage), page: { offset, limit, total } };
        },
      ),
      getResaleListing: unary(async (r: GetResaleListingRequest) => ({
        listing: toListingMessage(await app.getListing(r.id)),
      })),
      withdrawResaleListing: unary(async (r: WithdrawResaleListingRequest) => ({
        listing: toListingMessage(await app.withdrawListing(r.id)),
      })),
    },
  };
}
