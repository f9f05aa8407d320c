import type { Money } from '@marquee/platform/money';
import { MAX_QUANTITY, type TopPicksResult } from '../../app/top-picks-app.js';
import { SESSION_EXPIRED_MESSAGE } from '../../domain/fan-session.js';
import {
  offerTotal,
  type OfferCharge,
  type Pick,
  type PicksEvent,
  type ResaleOffer,
} from '../../domain/picks.js';

/**
 * What a top picks answer shows besides the picks: the offers they name, the event's details and
 * the answer's messages, with the English copy of the API (disclaimer, transfer, agreements).
 */

/** Shown with every answer that includes resale. */
export const LISTINGS_DISCLAIMER =
  'Resale tickets are offered by other fans at prices they set, which may be above or below face ' +
  'value. The seller’s tickets are voided and reissued to you when your order is confirmed.';

/** An offer of the answer (`_embedded.offer[]`). */
export interface EmbeddedOffer {
  offerId: string;
  name: string;
  ticketTypeId: string;
  priceLevelId: string;
  description: string;
  faceValue: Money;
  totalPrice: Money;
  charges: OfferCharge[];
  limit: { min: number; max: number };
  protected: boolean;
  inventoryType: 'PRIMARY' | 'RESALE';
  listingNotes?: {
    deliveryDate: Date;
    deliveryMethod: string;
    deliveryDescription: string;
    sellerNotes: string;
  };
}

/** The event's details of the answer (`eventDetails`). */
export interface EventDetails {
  id: string;
  currency: string;
  granularPricing: boolean;
  secureTixEnabled: boolean;
  allInclusivePricing: boolean;
  venueMapUrl: string;
  venueMapWithLabelsUrl: string;
  listingsDisclaimer: string;
  transfer: { eligible: boolean; explanation: string };
  agreements: { name: string; locale: string; text: string; type: string; agreementUrl: string }[];
  importantInformation?: { title: string; description: string };
}

/** The offers the picks of the page name (`_embedded.offer[]`): primary offers, then listings. */
function embeddedOffers(
  event: PicksEvent,
  picks: readonly Pick[],
  resale: readonly ResaleOffer[],
  now: Date,
): EmbeddedOffer[] {
  const wanted = new Set(picks.flatMap((p) => p.offerIds));
  const max = event.ticketLimit > 0 ? event.ticketLimit : MAX_QUANTITY;
  const primary = event.offers
    .filter((o) => wanted.has(o.offerId))
    .map((o): EmbeddedOffer => ({
      offerId: o.offerId,
      name: o.name,
      ticketTypeId: o.ticketTypeId,
      priceLevelId: o.priceLevelId,
      description: o.description,
      faceValue: o.faceValue,
      totalPrice: { amountMinor: offerTotal(o), currency: o.faceValue.currency },
      charges: o.charges,
      limit: { min: 1, max },
      protected: o.protected,
      inventoryType: 'PRIMARY',
    }));
  const resold = resale
    .filter((r) => wanted.has(r.listing.id))
    .map(({ listing, charges, total }): EmbeddedOffer => ({
      offerId: listing.id,
      name: 'Resale',
      ticketTypeId: listing.id,
      priceLevelId: listing.priceLevelId,
      description: `Resale: ${listing.ticketIds.length} tickets sold together`,
      faceValue: listing.faceValue,
      totalPrice: total,
      charges,
      limit: { min: listing.ticketIds.length, max: listing.ticketIds.length },
      protected: false,
      inventoryType: 'RESALE',
      listingNotes: {
        deliveryDate: now,
        deliveryMethod: 'ETICKET',
        deliveryDescription: 'Reissued to the buyer when the order is confirmed',
        sellerNotes: listing.sellerNotes,
      },
    }));
  return [...primary, ...resold];
}

/** The event's details of the answer, with the resale copy when resale is included. */
function eventDetails(event: PicksEvent, includeResale: boolean): EventDetails {
  const levelPrices = new Set(
    event.offers
      .filter((o) => !o.protected)
      .map((o) => `${o.ticketTypeId}:${o.faceValue.amountMinor}`),
  );
  const types = new Set(event.offers.filter((o) => !o.protected).map((o) => o.ticketTypeId));
  return {
    id: event.id,
    currency: event.currency,
    // Prices differ by price level: more distinct prices than price types.
    granularPricing: levelPrices.size > types.size,
    secureTixEnabled: event.secureEntryEnabled,
    allInclusivePricing: event.offers.every((o) => o.charges.every((c) => c.type === 'face_value')),
    venueMapUrl: event.seatmapUrl ?? '',
    venueMapWithLabelsUrl: event.seatmapUrl ?? '',
    listingsDisclaimer: includeResale ? LISTINGS_DISCLAIMER : '',
    transfer: {
      eligible: true,
      explanation: 'Tickets bought here can be put up for resale by their owner.',
    },
    agreements: includeResale
      ? [
          {
            name: 'resale',
            locale: 'en-us',
            text: 'I understand that resale tickets are sold by other fans at prices they set.',
            type: 'acknowledgement',
            agreementUrl: '',
          },
        ]
      : [],
    ...(event.importantInformation
      ? {
          importantInformation: {
            title: 'Important information',
            description: event.importantInformation,
          },
        }
      : {}),
  };
}

/** The offers, event details and messages of a top picks answer. */
export function topPicksAnswer(result: TopPicksResult): {
  offers: EmbeddedOffer[];
  eventDetails: EventDetails;
  messages: string[];
} {
  return {
    offers: embeddedOffers(result.event, result.picks.items, result.resale, result.now),
    eventDetails: eventDetails(result.event, result.includeResale),
    messages: result.outcome === 'renewed' ? [SESSION_EXPIRED_MESSAGE] : [],
  };
}
