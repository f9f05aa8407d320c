import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import { moneyToDecimal } from '@marquee/platform/money';
import {
  InventoryType,
  ListingState,
  PickSelection,
  PickType,
  TopPicksServiceClient,
  type GetTopPicksResponse,
  type ResaleListing,
} from '@marquee/proto/cart/v1';
import type { Money } from '@marquee/proto/common/v1';
import type {
  ResaleListingRecord,
  ResaleListingState,
  TopPicksBackend,
  TopPicksDocument,
} from '../app/top-picks.js';

/** The platform's minor units → the public API's decimal number (2550 EUR → 25.5). */
export const major = (money: Money | undefined): number => moneyToDecimal(money);

const STATES: Record<ListingState, ResaleListingState> = {
  [ListingState.LISTING_STATE_UNSPECIFIED]: 'LISTED',
  [ListingState.LISTING_STATE_LISTED]: 'LISTED',
  [ListingState.LISTING_STATE_HELD]: 'HELD',
  [ListingState.LISTING_STATE_SOLD]: 'SOLD',
  [ListingState.LISTING_STATE_WITHDRAWN]: 'WITHDRAWN',
  [ListingState.UNRECOGNIZED]: 'LISTED',
};

const adminMoney = (money: Money | undefined) => ({
  amount: money?.amountMinor ?? 0,
  currency: money?.currency ?? '',
});

export function toListingRecord(l: ResaleListing): ResaleListingRecord {
  return {
    id: l.id,
    eventId: l.eventId,
    orderId: l.orderId,
    ticketIds: l.ticketIds,
    price: adminMoney(l.price),
    faceValue: adminMoney(l.faceValue),
    areaId: l.areaId,
    section: l.section,
    row: l.row,
    seats: l.seats,
    generalAdmission: l.generalAdmission,
    priceLevelId: l.priceLevelId,
    priceTypeId: l.priceTypeId,
    state: STATES[l.state] ?? 'LISTED',
    ...(l.holdCartId ? { holdCartId: l.holdCartId } : {}),
    ...(l.holdExpiresAt ? { holdExpiresAt: l.holdExpiresAt.toISOString() } : {}),
    ...(l.soldOrderId ? { soldOrderId: l.soldOrderId } : {}),
    sellerNotes: l.sellerNotes,
    sellerAppId: l.sellerAppId,
    ...(l.createdAt ? { createdAt: l.createdAt.toISOString() } : {}),
    ...(l.updatedAt ? { updatedAt: l.updatedAt.toISOString() } : {}),
  };
}

type Pick = TopPicksDocument['picks'][number];
type Offer = TopPicksDocument['_embedded']['offer'][number];
type EventDetails = TopPicksDocument['eventDetails'];

function toPick(p: GetTopPicksResponse['picks'][number]): Pick {
  const resale = p.inventoryType === InventoryType.INVENTORY_TYPE_RESALE;
  return {
    type: p.type === PickType.PICK_TYPE_GENERAL_SEATING ? 'general-seating' : 'seats',
    quality: p.quality,
    area: { id: p.areaId, name: p.areaName, description: p.areaDescription },
    descriptions: p.descriptions,
    section: p.section,
    selection: resale ? 'resale' : 'standard',
    ...(p.row ? { row: p.row } : {}),
    snapshotImageUrl: null,
    ...(p.listingDetails
      ? {
          listingDetails: {
            location: p.listingDetails.location,
            ...(p.listingDetails.estimatedDelivery
              ? { estimatedDeliveryDate: p.listingDetails.estimatedDelivery.toISOString() }
              : {}),
          },
        }
      : {}),
    offers: p.offerIds,
    ...(p.seats.length > 0 ? { seats: p.seats } : {}),
  };
}

/** An offer; `currency` (the event's) stands in when the face value carries none. */
function toOffer(o: GetTopPicksResponse['offers'][number], currency: string): Offer {
  return {
    offerId: o.offerId,
    name: o.name,
    ticketTypeId: o.ticketTypeId,
    priceLevelId: o.priceLevelId,
    description: o.description,
    currency: o.faceValue?.currency ?? currency,
    faceValue: major(o.faceValue),
    totalPrice: major(o.totalPrice),
    charges: o.charges.map((c) => ({
      reason: c.reason,
      type: c.type,
      amount: major(c.amount),
      fee_type: c.feeType,
    })),
    limit: { min: o.limitMin, max: o.limitMax },
    promotions: [],
    protected: o.protected,
    inventoryType: o.inventoryType === InventoryType.INVENTORY_TYPE_RESALE ? 'RESALE' : 'PRIMARY',
    ...(o.listingNotes
      ? {
          listingNotes: {
            ...(o.listingNotes.deliveryDate
              ? { deliveryDate: o.listingNotes.deliveryDate.toISOString() }
              : {}),
            deliveryMethod: o.listingNotes.deliveryMethod,
            deliveryDescription: o.listingNotes.deliveryDescription,
            sellerNotes: o.listingNotes.sellerNotes,
          },
        }
      : {}),
  };
}

function toEventDetails(d: GetTopPicksResponse['eventDetails']): EventDetails {
  const info = d?.importantInformation;
  return {
    id: d?.id ?? '',
    granularPricing: d?.granularPricing ?? false,
    secureTixEnabled: d?.secureTixEnabled ?? false,
    allInclusivePricing: d?.allInclusivePricing ?? false,
    venueMapUrl: d?.venueMapUrl || null,
    venueMapWithLabelsUrl: d?.venueMapWithLabelsUrl || null,
    listingsDisclaimer: d?.listingsDisclaimer ?? '',
    transfer: {
      eligible: d?.transferEligible ?? false,
      explanation: d?.transferExplanation ?? '',
    },
    agreements: (d?.agreements ?? []).map((a) => ({
      name: a.name,
      locale: a.locale,
      text: a.text,
      type: a.type,
      agreement_url: a.agreementUrl,
    })),
    importantInformation: info
      ? {
          buttonText: info.buttonText,
          linkText: info.linkText,
          secondaryLinkText: info.secondaryLinkText,
          linkUrl: info.linkUrl,
          secondaryLinkUrl: info.secondaryLinkUrl,
          description: info.description,
          title: info.title,
        }
      : null,
  };
}

/** The gRPC answer in the public API's shape (field names, epoch milliseconds, decimal amounts). */
export function toTopPicksDocument(r: GetTopPicksResponse): TopPicksDocument {
  const d = r.eventDetails;
  const currency = d?.currency ?? '';
  return {
    fanSession: {
      resaleSid: {
        sessionId: r.fanSession?.id ?? '',
        sessionStartTime: r.fanSession?.startedAt?.getTime() ?? 0,
        sessionExpireTime: r.fanSession?.expiresAt?.getTime() ?? 0,
      },
    },
    messages: r.messages,
    page: {
      number: r.page,
      size: r.size,
      totalElements: r.totalElements,
      totalPages: r.totalPages,
    },
    picks: r.picks.map(toPick),
    _embedded: {
      offer: r.offers.map((o) => toOffer(o, currency)),
    },
    eventDetails: toEventDetails(d),
  };
}

/** cart's TopPicksService as the edge's TopPicksBackend port. Errors arrive as kinds. */
export function createTopPicksClient(
  address: string,
  options: { deadlineMs: number; logger: Logger },
): TopPicksBackend & { close(): void } {
  const client = createGrpcClient(TopPicksServiceClient, address, options);
  return {
    async getTopPicks(q) {
      return toTopPicksDocument(
        await callUnary(client, 'getTopPicks', {
          appId: q.appId,
          eventId: q.eventId,
          fanSessionId: q.fanSessionId,
          quantity: q.quantity,
          ticketTypeId: q.ticketTypeId,
          priceLevelIds: q.priceLevelIds,
          areaIds: q.areaIds,
          sections: q.sections,
          priceMin: q.priceMin,
          priceMax: q.priceMax,
          selection: q.includeResale
            ? PickSelection.PICK_SELECTION_ANY
            : PickSelection.PICK_SELECTION_STANDARD,
          page: q.page,
          size: q.size,
        }),
      );
    },
    async createListing(input) {
      const answer = await callUnary(client, 'createResaleListing', {
        orderId: input.orderId,
        ticketIds: input.ticketIds,
        price: { amountMinor: input.price.amount, currency: input.price.currency.toUpperCase() },
        sellerNotes: input.sellerNotes,
      });
      return toListingRecord(answer.listing!);
    },
    async listListings(query) {
      const answer = await callUnary(client, 'listResaleListings', {
        eventId: query.eventId,
        activeOnly: query.activeOnly,
        page: { offset: query.offset, limit: query.limit },
      });
      return {
        listings: answer.listings.map(toListingRecord),
        page: answer.page
          ? { offset: answer.page.offset, limit: answer.page.limit, total: answer.page.total }
          : { offset: query.offset, limit: query.limit, total: answer.listings.length },
      };
    },
    async getListing(id) {
      return toListingRecord((await callUnary(client, 'getResaleListing', { id })).listing!);
    },
    async withdrawListing(id) {
      return toListingRecord((await callUnary(client, 'withdrawResaleListing', { id })).listing!);
    },
    close: () => client.close(),
  };
}
