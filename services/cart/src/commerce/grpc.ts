import { unary } from '@marquee/platform/grpc';
import type { Idempotency } from '@marquee/platform/idempotency';
import type { GrpcRegistration } from '@marquee/platform/service';
import {
  AddShoppingCartPaymentRequest,
  AddShoppingCartPaymentResponse,
  CommerceServiceService,
  CreateShoppingCartRequest,
  CreateShoppingCartResponse,
  ProductChangeOp,
  PurchaseShoppingCartRequest,
  PurchaseShoppingCartResponse,
  UpdateShoppingCartProductsRequest,
  UpdateShoppingCartProductsResponse,
  type CommerceServiceServer,
  type GetEventOffersResponse,
  type ShoppingCart,
  type ShoppingProduct,
} from '@marquee/proto/cart/v1';
import type { CartApp } from '../app/index.js';
import { invalidInput } from '../domain/errors.js';
import { cartMessage, cartOrderMessage } from '../ports/grpc/cart-grpc.js';
import type { CommerceApp, ProductInput, Shopper, ShoppingCartView } from './commerce-app.js';
import type { EventOffers } from './offers.js';

const money = (amountMinor: number, currency: string) => ({ amountMinor, currency });

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
    offers: built.offers.map((o) => ({
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
    })),
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

function shoppingCartMessage(
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

const productInput = (p: ShoppingProduct): ProductInput => ({
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

/** The request as idempotency hashes it: the operation name and the request without its key. */
function requestBytes(operation: string, encoded: Uint8Array): Uint8Array {
  const name = new TextEncoder().encode(`commerce.${operation}\u0000`);
  const bytes = new Uint8Array(name.length + encoded.length);
  bytes.set(name);
  bytes.set(encoded, name.length);
  return bytes;
}

/**
 * `marquee.cart.v1.CommerceService`: maps messages, applies idempotency keys (per app and fan) to
 * the writes that create something (create, products, payment, purchase), delegates to CommerceApp.
 */
export function commerceGrpc(
  commerce: CommerceApp,
  carts: CartApp,
  idempotency: Idempotency,
): GrpcRegistration {
  const shopper = (r: {
    appId: string;
    fanId: string;
    heldTicketsPerEvent?: number | undefined;
  }): Shopper => ({
    appId: r.appId,
    fanId: r.fanId,
    ...(r.heldTicketsPerEvent !== undefined ? { heldTicketsPerEvent: r.heldTicketsPerEvent } : {}),
  });
  const scope = (r: { appId: string; fanId: string }) => `commerce:${r.appId}:${r.fanId}`;
  const implementation: CommerceServiceServer = {
    getEventOffers: unary(async (r) => {
      if (!r.appId) throw invalidInput('app_id is required', 'app_id');
      const { event, offers } = await commerce.offers({
        shopper: shopper(r),
        eventId: r.eventId,
        passwords: r.passwords,
      });
      return offersMessage(offers, event);
    }),
    createShoppingCart: unary((r: CreateShoppingCartRequest) =>
      idempotency.run(
        {
          scope: scope(r),
          key: r.idempotencyKey,
          request: requestBytes(
            'CreateShoppingCart',
            CreateShoppingCartRequest.encode({
              ...r,
              idempotencyKey: '',
              // The quota is the app's setting, not the request: a retry after it changed is
              // still the same request.
              heldTicketsPerEvent: undefined,
            }).finish(),
          ),
          encode: (res) => CreateShoppingCartResponse.encode(res).finish(),
          decode: (bytes) => CreateShoppingCartResponse.decode(bytes),
        },
        async (): Promise<CreateShoppingCartResponse> => {
          const shaped = await commerce.create(shopper(r), r.products.map(productInput));
          return {
            cart: shoppingCartMessage(shaped, carts, r.pollingCallbackUrl),
            pollAfterSeconds: shaped.view.pollAfterSeconds,
          };
        },
      ),
    ),
    getShoppingCart: unary(async (r) => {
      const shaped = await commerce.get(shopper(r), r.cartId);
      return {
        cart: shoppingCartMessage(shaped, carts),
        pollAfterSeconds: shaped.view.pollAfterSeconds,
      };
    }),
    deleteShoppingCart: unary(async (r) => {
      await commerce.release(shopper(r), r.cartId);
      return {};
    }),
    updateShoppingCartProducts: unary((r: UpdateShoppingCartProductsRequest) =>
      idempotency.run(
        {
          scope: scope(r),
          key: r.idempotencyKey,
          request: requestBytes(
            'UpdateShoppingCartProducts',
            UpdateShoppingCartProductsRequest.encode({
              ...r,
              idempotencyKey: '',
              // The quota is the app's setting, not the request: a retry after it changed is
              // still the same request.
              heldTicketsPerEvent: undefined,
            }).finish(),
          ),
          encode: (res) => UpdateShoppingCartProductsResponse.encode(res).finish(),
          decode: (bytes) => UpdateShoppingCartProductsResponse.decode(bytes),
        },
        async (): Promise<UpdateShoppingCartProductsResponse> => {
          const changes = r.changes.map((c) => {
            if (
              c.op !== ProductChangeOp.PRODUCT_CHANGE_OP_ADD &&
              c.op !== ProductChangeOp.PRODUCT_CHANGE_OP_REMOVE
            )
              throw invalidInput('op must be add or remove', 'products.op');
            if (!c.product) throw invalidInput('a product is required', 'products');
            return {
              op:
                c.op === ProductChangeOp.PRODUCT_CHANGE_OP_ADD
                  ? ('add' as const)
                  : ('remove' as const),
              product: productInput(c.product),
            };
          });
          const shaped = await commerce.updateProducts(shopper(r), r.cartId, changes);
          return { cart: shoppingCartMessage(shaped, carts) };
        },
      ),
    ),
    selectShoppingCartDelivery: unary(async (r) => {
      const shaped = await commerce.selectDelivery(shopper(r), r.cartId, r.deliveryId);
      return { cart: shoppingCartMessage(shaped, carts) };
    }),
    addShoppingCartPayment: unary((r: AddShoppingCartPaymentRequest) =>
      idempotency.run(
        {
          scope: scope(r),
          key: r.idempotencyKey,
          request: requestBytes(
            'AddShoppingCartPayment',
            AddShoppingCartPaymentRequest.encode({
              ...r,
              idempotencyKey: '',
              // Card verification data is never digested (idempotency README, "What is kept").
              billing: r.billing ? { ...r.billing, cin: '' } : undefined,
            }).finish(),
          ),
          encode: (res) => AddShoppingCartPaymentResponse.encode(res).finish(),
          decode: (bytes) => AddShoppingCartPaymentResponse.decode(bytes),
        },
        async (): Promise<AddShoppingCartPaymentResponse> => {
          const b = r.billing;
          if (!b) throw invalidInput('billing is required', 'payments');
          const shaped = await commerce.addPayment(shopper(r), r.cartId, {
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
          });
          return { cart: shoppingCartMessage(shaped, carts) };
        },
      ),
    ),
    purchaseShoppingCart: unary((r: PurchaseShoppingCartRequest) =>
      idempotency.run(
        {
          scope: scope(r),
          key: r.idempotencyKey,
          request: requestBytes(
            'PurchaseShoppingCart',
            PurchaseShoppingCartRequest.encode({ ...r, idempotencyKey: '' }).finish(),
          ),
          encode: (res) => PurchaseShoppingCartResponse.encode(res).finish(),
          decode: (bytes) => PurchaseShoppingCartResponse.decode(bytes),
        },
        async (): Promise<PurchaseShoppingCartResponse> => {
          const { cart, result } = await commerce.purchase(shopper(r), r.cartId);
          return {
            cart: shoppingCartMessage(cart, carts),
            order: cartOrderMessage(result.order, carts.redemptionUrl(result.order)),
            redemptionToken: result.orderToken,
            ticketCount: result.order.tickets.length,
          };
        },
      ),
    ),
    getCartDeliveries: unary(async (r) => {
      const { currency, deliveries } = await commerce.deliveries(r.appId, r.cartId);
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
    }),
  };
  return { definition: CommerceServiceService, implementation };
}
