import {
  ProductChangeOp,
  type AddShoppingCartPaymentRequest,
  type GetCartDeliveriesResponse,
  type GetEventOffersResponse,
  type ShoppingCart,
  type ShoppingProduct,
  type UpdateShoppingCartProductsRequest,
} from '@marquee/proto/cart/v1';
import type { BillingInput, CartApp } from '../../../app/index.js';
import { invalidInput } from '../../../domain/errors.js';
import { cartMessage } from '../../../ports/grpc/cart-messages.js';
import type { ProductChange, ProductInput, ShoppingCartView } from '../../app/commerce-app.js';
import type { CommerceDelivery } from '../../domain/deliveries.js';
import type { BuiltOffer, EventOffers } from '../../domain/offers.js';

/** The commerce contract's messages: offers, shopping carts, products, billing and deliveries. */

const money = (amountMinor: number, currency: string) => ({ amountMinor, currency });

/** One built offer as `GetEventOffersResponse.offers[]`. */
function offerMessage(o: BuiltOffer, c: string): GetEventOffersResponse['offers'][number] {
  return {
    id: o.id,
    name: o.name,
    description: o.description,
    rank: o.rank,
    offerType: o.offerType,
    currency: c,
    start: o.start,
    end: o.end,
    prices: [
      {
        priceZoneId: o.priceLevelId,
        value: money(o.faceValueMinor, c),
        total: money(o.totalMinor, c),
        fees: o.fees.map((f) => ({
          value: money(f.amountMinor, c),
          label: f.label,
          type: f.type,
        })),
        taxes: o.taxes.map((f) => ({
          value: money(f.amountMinor, c),
          label: f.label,
          type: f.type,
        })),
      },
    ],
    limit: {
      min: o.limit.min,
      max: o.limit.max,
      sellableQty: o.limit.sellableQty,
      multiples: o.limit.multiples,
      maxAccessibleSeats: 0,
      maxCompanionSeatsPerAccessibleSeat: 0,
    },
    areaIds: o.areaIds,
    priceZoneIds: [o.priceLevelId],
    passwordIds: o.passwordIds,
    priceTypeId: o.priceTypeId,
    priceLevelId: o.priceLevelId,
    protected: o.protected,
  };
}

/** An event's built offers as `GetEventOffersResponse`. */
export function offersMessage(
  built: EventOffers,
  event: { name: string; partnerId: string; partnerEventId: string },
): GetEventOffersResponse {
  const c = built.currency;
  return {
    eventId: built.eventId,
    currency: c,
    limitMax: built.limitMax,
    eventName: event.name,
    offers: built.offers.map((o) => offerMessage(o, c)),
    priceZones: built.priceZones.map((z) => ({
      id: z.id,
      name: z.name,
      currency: c,
      offerIds: z.offerIds,
      areaIds: z.areaIds,
    })),
    areas: built.areas.map((a) => ({
      id: a.id,
      rank: a.rank,
      name: a.name,
      description: a.description,
      areaType: a.areaType,
      offerIds: a.offerIds,
      priceZoneIds: [a.priceZoneId],
    })),
    passwords: built.passwords.map((p) => ({
      id: p.id,
      name: p.name,
      text: p.text,
      exclusive: true,
      start: p.start,
      end: p.end,
      // The password's offers are named only once the caller gave it.
      offerIds: p.unlocked ? p.offerIds : [],
      unlocked: p.unlocked,
    })),
    metadata: {
      sourceName: 'partner',
      sourceId: event.partnerId,
      mappedId: event.partnerEventId,
      mappedType: 'event',
      accessibleSeatingEnabled: false,
      rollupFacilityFee: false,
      rollupServiceCharge: false,
    },
  };
}

/** A shopping cart view as `ShoppingCart`: cart's own message with its offers. */
export function shoppingCartMessage(
  shaped: ShoppingCartView,
  carts: CartApp,
  pollingCallbackUrl = '',
): ShoppingCart {
  return {
    cart: cartMessage(shaped.view, carts),
    fanId: shaped.view.cart.fanId ?? '',
    productId: shaped.view.cart.eventId,
    eventName: shaped.event?.name ?? '',
    offers: shaped.offers.map((o) => ({
      id: o.id,
      name: o.name,
      description: o.description,
      priceTypeId: o.priceTypeId,
      priceLevelId: o.priceLevelId,
    })),
    pollingCallbackUrl,
  };
}

/** A requested product as the use case's input. */
export const productInput = (p: ShoppingProduct): ProductInput => ({
  product: p.product,
  eventId: p.eventId,
  qty: p.qty,
  offers: p.offers.map((o) => ({ offer: o.offer, qty: o.qty, password: o.password })),
  areaIds: p.areaIds,
  minPrice: p.minPrice,
  maxPrice: p.maxPrice,
  minPriceMinor: p.minPriceMinor,
  maxPriceMinor: p.maxPriceMinor,
});

/** The product changes of an update; an unknown op or a change without a product is refused. */
export function productChanges(
  changes: UpdateShoppingCartProductsRequest['changes'],
): ProductChange[] {
  return changes.map((c) => {
    if (
      c.op !== ProductChangeOp.PRODUCT_CHANGE_OP_ADD &&
      c.op !== ProductChangeOp.PRODUCT_CHANGE_OP_REMOVE
    )
      throw invalidInput('op must be add or remove', 'products.op');
    if (!c.product) throw invalidInput('a product is required', 'products');
    return {
      op: c.op === ProductChangeOp.PRODUCT_CHANGE_OP_ADD ? ('add' as const) : ('remove' as const),
      product: productInput(c.product),
    };
  });
}

/** A shopping cart payment's billing as the use case's input; billing is required. */
export function commerceBilling(b: AddShoppingCartPaymentRequest['billing']): BillingInput {
  if (!b) throw invalidInput('billing is required', 'payments');
  return {
    firstName: b.firstName,
    lastName: b.lastName,
    email: b.emailAddress,
    type: b.type,
    reference: b.reference,
    countryCode: b.address?.countryCode ?? '',
    amountMinor: b.amount?.amountMinor ?? 0,
    currency: b.amount?.currency ?? '',
    cardNonce: b.cardNonce,
    cin: b.cin,
    expireMonth: b.expireMonth,
    expireYear: b.expireYear,
    thirdPartyAccountId: b.thirdPartyAccountId,
  };
}

/** A cart's deliveries as `GetCartDeliveriesResponse`. */
export function deliveriesMessage(
  currency: string,
  deliveries: readonly CommerceDelivery[],
): GetCartDeliveriesResponse {
  return {
    deliveries: deliveries.map((d) => ({
      id: d.id,
      deliveryType: d.deliveryType,
      displayRank: d.displayRank,
      // Delivery prices include tax (cart's shipping table).
      fee: money(d.feeMinor, currency),
      tax: money(0, currency),
      descriptionLong: d.descriptionLong,
      descriptionShort: d.descriptionShort,
      options: [
        {
          ...d.option,
          excludedCountries: [],
        },
      ],
      restrictedOfferIds: [],
      selected: d.selected,
    })),
  };
}
