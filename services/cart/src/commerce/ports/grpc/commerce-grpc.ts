import type { Idempotency } from '@marquee/platform/idempotency';
import type { GrpcRegistration } from '@marquee/platform/service';
import {
  AddShoppingCartPaymentRequest,
  AddShoppingCartPaymentResponse,
  CommerceServiceService,
  CreateShoppingCartRequest,
  CreateShoppingCartResponse,
  PurchaseShoppingCartRequest,
  PurchaseShoppingCartResponse,
  UpdateShoppingCartProductsRequest,
  UpdateShoppingCartProductsResponse,
  type CommerceServiceServer,
} from '@marquee/proto/cart/v1';
import type { CartApp } from '../../../app/index.js';
import { invalidInput } from '../../../domain/errors.js';
import { cartOrderMessage } from '../../../ports/grpc/cart-messages.js';
import { requestBytes } from '../../../ports/grpc/request-bytes.js';
import { unary } from '@marquee/platform/grpc';
import type { CommerceApp, Shopper } from '../../app/commerce-app.js';
import {
  commerceBilling,
  deliveriesMessage,
  offersMessage,
  productChanges,
  productInput,
  shoppingCartMessage,
} from './commerce-messages.js';

type Handlers<K extends keyof CommerceServiceServer> = Pick<CommerceServiceServer, K>;

/** What the handlers share: the use cases, cart's application (messages) and idempotency. */
interface Deps {
  commerce: CommerceApp;
  carts: CartApp;
  idempotency: Idempotency;
}

/** The caller of a commerce call: the app and the signed-in fan, with the app's quota. */
const shopper = (r: {
  appId: string;
  fanId: string;
  heldTicketsPerEvent?: number | undefined;
}): Shopper => ({
  appId: r.appId,
  fanId: r.fanId,
  ...(r.heldTicketsPerEvent !== undefined ? { heldTicketsPerEvent: r.heldTicketsPerEvent } : {}),
});

/** Idempotency keys are per app and fan. */
const scope = (r: { appId: string; fanId: string }) => `commerce:${r.appId}:${r.fanId}`;

/** The request as idempotency hashes it, under the commerce operation's name. */
const commerceRequest = (operation: string, encoded: Uint8Array) =>
  requestBytes(`commerce.${operation}`, encoded);

/** The reads and the writes that create nothing: offers, a cart, its deliveries, release. */
function reads({
  commerce,
  carts,
}: Deps): Handlers<
  | 'getEventOffers'
  | 'getShoppingCart'
  | 'deleteShoppingCart'
  | 'selectShoppingCartDelivery'
  | 'getCartDeliveries'
> {
  return {
    getEventOffers: unary(async (r) => {
      if (!r.appId) throw invalidInput('app_id is required', 'app_id');
      const { event, offers } = await commerce.offers({
        shopper: shopper(r),
        eventId: r.eventId,
        passwords: r.passwords,
      });
      return offersMessage(offers, event);
    }),
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
    selectShoppingCartDelivery: unary(async (r) => {
      const shaped = await commerce.selectDelivery(shopper(r), r.cartId, r.deliveryId);
      return { cart: shoppingCartMessage(shaped, carts) };
    }),
    getCartDeliveries: unary(async (r) => {
      const { currency, deliveries } = await commerce.deliveries(r.appId, r.cartId);
      return deliveriesMessage(currency, deliveries);
    }),
  };
}

/** CreateShoppingCart and UpdateShoppingCartProducts: the idempotent writes that hold tickets. */
function holds({
  commerce,
  carts,
  idempotency,
}: Deps): Handlers<'createShoppingCart' | 'updateShoppingCartProducts'> {
  return {
    createShoppingCart: unary((r: CreateShoppingCartRequest) =>
      idempotency.run(
        {
          scope: scope(r),
          key: r.idempotencyKey,
          request: commerceRequest(
            'CreateShoppingCart',
            // The quota is the app's setting, not the request: a retry after it changed is
            // still the same request.
            CreateShoppingCartRequest.encode({
              ...r,
              idempotencyKey: '',
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
    updateShoppingCartProducts: unary((r: UpdateShoppingCartProductsRequest) =>
      idempotency.run(
        {
          scope: scope(r),
          key: r.idempotencyKey,
          request: commerceRequest(
            'UpdateShoppingCartProducts',
            // As above: the quota is not part of the request.
            UpdateShoppingCartProductsRequest.encode({
              ...r,
              idempotencyKey: '',
              heldTicketsPerEvent: undefined,
            }).finish(),
          ),
          encode: (res) => UpdateShoppingCartProductsResponse.encode(res).finish(),
          decode: (bytes) => UpdateShoppingCartProductsResponse.decode(bytes),
        },
        async (): Promise<UpdateShoppingCartProductsResponse> => {
          const changes = productChanges(r.changes);
          const shaped = await commerce.updateProducts(shopper(r), r.cartId, changes);
          return { cart: shoppingCartMessage(shaped, carts) };
        },
      ),
    ),
  };
}

/** AddShoppingCartPayment and PurchaseShoppingCart: the idempotent writes that pay and buy. */
function purchase({
  commerce,
  carts,
  idempotency,
}: Deps): Handlers<'addShoppingCartPayment' | 'purchaseShoppingCart'> {
  return {
    addShoppingCartPayment: unary((r: AddShoppingCartPaymentRequest) =>
      idempotency.run(
        {
          scope: scope(r),
          key: r.idempotencyKey,
          request: commerceRequest(
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
          const billing = commerceBilling(r.billing);
          const shaped = await commerce.addPayment(shopper(r), r.cartId, billing);
          return { cart: shoppingCartMessage(shaped, carts) };
        },
      ),
    ),
    purchaseShoppingCart: unary((r: PurchaseShoppingCartRequest) =>
      idempotency.run(
        {
          scope: scope(r),
          key: r.idempotencyKey,
          request: commerceRequest(
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
  };
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
  const deps: Deps = { commerce, carts, idempotency };
  const implementation: CommerceServiceServer = {
    ...reads(deps),
    ...holds(deps),
    ...purchase(deps),
  };
  return { definition: CommerceServiceService, implementation };
}
