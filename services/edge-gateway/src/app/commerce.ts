/**
 * The edge's ports for the commerce API (`/commerce/v2`): cart's CommerceService (offers, shopping
 * carts, deliveries), fan access-token introspection and the operators' approval of apps for
 * restricted services (both auth-gateway). Implemented by adapters/commerce-client.ts and
 * adapters/auth-gateway-client.ts over gRPC, and by fakes in unit tests.
 */
import type {
  AddShoppingCartPaymentRequest,
  AddShoppingCartPaymentResponse,
  CreateShoppingCartRequest,
  CreateShoppingCartResponse,
  DeleteShoppingCartRequest,
  GetCartDeliveriesRequest,
  GetCartDeliveriesResponse,
  GetEventOffersRequest,
  GetEventOffersResponse,
  GetShoppingCartRequest,
  GetShoppingCartResponse,
  PurchaseShoppingCartRequest,
  PurchaseShoppingCartResponse,
  SelectShoppingCartDeliveryRequest,
  SelectShoppingCartDeliveryResponse,
  UpdateShoppingCartProductsRequest,
  UpdateShoppingCartProductsResponse,
} from '@marquee/proto/cart/v1';

/** cart's CommerceService, message for message. Errors arrive as AppError kinds (with details). */
export interface CommerceBackend {
  getEventOffers(request: GetEventOffersRequest): Promise<GetEventOffersResponse>;
  createShoppingCart(request: CreateShoppingCartRequest): Promise<CreateShoppingCartResponse>;
  getShoppingCart(request: GetShoppingCartRequest): Promise<GetShoppingCartResponse>;
  deleteShoppingCart(request: DeleteShoppingCartRequest): Promise<void>;
  updateShoppingCartProducts(
    request: UpdateShoppingCartProductsRequest,
  ): Promise<UpdateShoppingCartProductsResponse>;
  selectShoppingCartDelivery(
    request: SelectShoppingCartDeliveryRequest,
  ): Promise<SelectShoppingCartDeliveryResponse>;
  addShoppingCartPayment(
    request: AddShoppingCartPaymentRequest,
  ): Promise<AddShoppingCartPaymentResponse>;
  purchaseShoppingCart(request: PurchaseShoppingCartRequest): Promise<PurchaseShoppingCartResponse>;
  getCartDeliveries(request: GetCartDeliveriesRequest): Promise<GetCartDeliveriesResponse>;
}

/** What a fan access token stands for (auth-gateway's IntrospectToken). */
export interface FanToken {
  /** `false` for unknown, expired or revoked tokens; the other fields are then empty. */
  active: boolean;
  /** The app the token was issued to. */
  appId: string;
  /** The signed-in fan. */
  fanId: string;
}

export interface FanTokens {
  introspect(accessToken: string): Promise<FanToken>;
}

/** Restricted services an operator approved an app for (auth-gateway `AppAccess`). */
export interface AppAccess {
  /** The commerce API's shopping services (cart, delivery, payment, purchase). */
  commerceShopping: boolean;
  /** The partner cart, the secure-entry order read and secure render (distributors only). */
  partnerDistribution: boolean;
}

/** An app as operators see it (auth-gateway `GetApp`): never a secret. */
export interface AppDetails {
  appId: string;
  name: string;
  clientId: string;
  /** Public id for the tracking pixel; empty until auth-gateway's start-up backfill gave one. */
  trackingId: string;
  redirectUris: string[];
  status: 'ACTIVE' | 'SUSPENDED';
  quota: { perDay: number; perSecond: number; heldTicketsPerEvent: number };
  access: AppAccess;
  oauth: { requirePkce: boolean; rotateRefreshTokens: boolean };
  createdAt?: Date;
}

export interface AppAccessAdmin {
  /** Sets the given flags (others keep their value); kind `not_found` for an unknown app. */
  setAppAccess(appId: string, change: Partial<AppAccess>): Promise<AppAccess>;
  /** Kind `not_found` for an unknown app. */
  getAppAccess(appId: string): Promise<AppAccess>;
  /** The whole app for operators; kind `not_found` for an unknown app. */
  getApp(appId: string): Promise<AppDetails>;
}
