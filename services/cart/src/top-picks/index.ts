import type { ServiceStores } from '@marquee/platform/store';
import type { Logger } from '@marquee/platform/logger';
import { cryptoIds } from './adapters/ids.js';
import { createTopPicksStorage } from './adapters/stores.js';
import type { Clock, LiveSeats, OrderLookup, PicksEventSource, TopPicksIds } from './app/ports.js';
import { TopPicksApp } from './app/top-picks-app.js';
import { topPicksGrpc } from './ports/top-picks-grpc.js';

export { TopPicksApp } from './app/top-picks-app.js';
export type { HeldListing, ResoldTicket } from './app/top-picks-app.js';
export { isListingId } from './domain/listing.js';
export type { ResaleInventory } from './resale-inventory.js';

export const DEFAULT_SESSION_TTL_MS = 60 * 60_000;
/** Expired sessions are kept this long (renewable under their id), then purged. */
export const DEFAULT_SESSION_KEEP_MS = 7 * 24 * 60 * 60_000;

export interface TopPicksOptions {
  stores: ServiceStores;
  events: PicksEventSource;
  orders: OrderLookup;
  liveSeats?: LiveSeats;
  logger: Logger;
  sessionTtlMs?: number;
  clock?: Clock;
  ids?: TopPicksIds;
}

/**
 * Top picks, fan sessions and resale listings inside cart: the app over its collections, its gRPC
 * registration (TopPicksService) and the app itself, which is the cart's resale inventory.
 * Call before `stores.ensureIndexes()`.
 */
export function composeTopPicks(options: TopPicksOptions) {
  const storage = createTopPicksStorage(options.stores);
  const app = new TopPicksApp({
    ...storage,
    events: options.events,
    orders: options.orders,
    ...(options.liveSeats ? { liveSeats: options.liveSeats } : {}),
    clock: options.clock ?? { now: () => new Date() },
    ids: options.ids ?? cryptoIds,
    log: options.logger,
    settings: { sessionTtlMs: options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS },
  });
  return { app, grpc: topPicksGrpc(app) };
}
