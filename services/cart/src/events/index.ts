/**
 * The event projection of cart: what the partner cart, the commerce API and top picks know about
 * the events they sell. Read it through `EventReader`; the Kafka handlers and the store are wired
 * by `src/service.ts`.
 */
export type {
  EventReader,
  SellableArea,
  SellableEvent,
  SellableEventStatus,
  SellablePrice,
  SellablePricePeriod,
  SellablePriceLevel,
  SellablePriceType,
} from '../domain/sellable-event.js';
export { faceValueOf, isOnSale, isPartnerEvent, pricesAt } from '../domain/sellable-event.js';
export { EventProjectionStore, type EventProjectionDoc } from './store.js';
export { DurableProjection } from './durable.js';
export { availabilityChangedHandler, eventChangedHandler } from './handlers.js';
export { newerProjection, pickText, toProjectedEvent, type EventProjection } from './projection.js';
