/**
 * The application layer of cart, for every API slice built on it (the partner cart gRPC port, the
 * commerce API, top picks): `CartApp` and its inputs and views. Nothing here knows an API's wire
 * shape; amounts are integers in minor units of the cart's currency.
 */
export { CartApp } from './cart-app.js';
export { InMemorySoldOutBook, tellingPlacesBack } from './core/sold-out-book.js';
export { soldOutTtlOf } from './core/reserve-admission.js';
export { sandboxAreas } from './inventory/sandbox.js';
export { heldTicketsOf, resaleLinesOf } from './inventory/resale.js';
export { listingIdsOf } from './inventory/inventory.js';
export type {
  BillingInput,
  CartAppDeps,
  CartOwner,
  CartSettings,
  CartView,
  CommitResult,
  EventAvailability,
  Offer,
  ReserveInput,
  ReserveRequestInput,
  ReserveTicketInput,
} from './types.js';
export type * from './ports.js';
export type {
  Cart,
  CartBilling,
  CartChannel,
  CartPayment,
  CartStatus,
  HeldTicket,
  ReleaseReason,
} from '../domain/cart.js';
export type { CancelReason, Order, OrderStatus, OrderTicket } from '../domain/order.js';
export type { CartTotals, Charge, FeeSchedule, PricedCart, PricedLine } from '../domain/pricing.js';
export type { ShippingOption } from '../domain/shipping.js';
export type { Agreement } from '../domain/agreements.js';
export { CartError, ErrorCode } from '../domain/errors.js';
