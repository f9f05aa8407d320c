import type { ServiceDefinition } from '@marquee/platform/service';
import { v8OptionsOf } from '@marquee/platform/v8';
import manifest from '../package.json' with { type: 'json' };
import { loadCartConfig, type CartConfig } from './config.js';
import { composeCart } from './service.js';

export { configSchema, loadCartConfig, type CartConfig } from './config.js';

/** cart as the process runner and the embedded default see it. */
export const cartService: ServiceDefinition<CartConfig> = {
  name: 'cart',
  loadConfig: loadCartConfig,
  compose: composeCart,
  calls: ['3p-connector', 'secure-entry'],
  // The edge only: it resolved the app from its API key, the fan from the token and checked the
  // admin token, and every request names the app whose carts and orders it reads or changes.
  callers: {
    'marquee.cart.v1.CartService': {
      GetEventAvailability: ['edge-gateway'],
      ReserveCart: ['edge-gateway'],
      GetCart: ['edge-gateway'],
      GetShippingOptions: ['edge-gateway'],
      SelectShipping: ['edge-gateway'],
      AddPayment: ['edge-gateway'],
      CommitCart: ['edge-gateway'],
      ReleaseCart: ['edge-gateway'],
      RecordTracking: ['edge-gateway'],
      CancelOrder: ['edge-gateway'],
      // secure-entry: its start-up backfill of the fan id of orders stored before it kept one.
      GetOrder: ['edge-gateway', 'secure-entry'],
      PrintOrder: ['edge-gateway'],
      // The edge verified the event's Stripe-Signature (POST /webhooks/stripe).
      HandleStripeEvent: ['edge-gateway'],
    },
    'marquee.cart.v1.CommerceService': {
      GetEventOffers: ['edge-gateway'],
      CreateShoppingCart: ['edge-gateway'],
      GetShoppingCart: ['edge-gateway'],
      DeleteShoppingCart: ['edge-gateway'],
      UpdateShoppingCartProducts: ['edge-gateway'],
      SelectShoppingCartDelivery: ['edge-gateway'],
      AddShoppingCartPayment: ['edge-gateway'],
      PurchaseShoppingCart: ['edge-gateway'],
      GetCartDeliveries: ['edge-gateway'],
    },
    'marquee.cart.v1.TopPicksService': {
      GetTopPicks: ['edge-gateway'],
      CreateResaleListing: ['edge-gateway'],
      ListResaleListings: ['edge-gateway'],
      GetResaleListing: ['edge-gateway'],
      WithdrawResaleListing: ['edge-gateway'],
    },
    'marquee.cart.v1.WaitingRoomService': {
      ConfigureOnSale: ['edge-gateway'],
      JoinQueue: ['edge-gateway'],
      GetQueueTicket: ['edge-gateway'],
      GetOnSale: ['edge-gateway'],
      GetQueueTickets: ['edge-gateway'],
      ReportQueuePresence: ['edge-gateway'],
    },
  },
  // The nightly maintenance window would make a development run depend on the wall clock.
  development: { env: () => ({ CART_MAINTENANCE_WINDOW: 'off' }) },
  // package.json `marquee.v8` (docs/architecture.md, "V8 options").
  v8: v8OptionsOf(manifest),
};
