import { systemClock } from '@marquee/platform/kernel';
import type { Logger } from '@marquee/platform/logger';
import { cryptoIds } from './adapters/ids.js';
import type { TopPicksStorage } from './adapters/stores.js';
import type {
  AdmittedSeats,
  Clock,
  LiveSeats,
  OrderLookup,
  PicksEventSource,
  TopPicksIds,
} from './app/ports.js';
import { TopPicksApp } from './app/top-picks-app.js';
import { ticketScannedHandler } from './ports/kafka/ticket-scanned.js';
import { topPicksGrpc } from './ports/grpc/top-picks-grpc.js';

export { TopPicksApp } from './app/top-picks-app.js';
export { createTopPicksStorage, type TopPicksStorage } from './adapters/stores.js';
export {
  cartOrderLookup,
  connectorLiveSeats,
  projectionEventSource,
} from './adapters/cart-sources.js';
export { secureEntryAdmittedSeats } from './adapters/secure-entry-seats.js';
export type { AdmittedSeats } from './app/ports.js';
export type { HeldListing, ResoldTicket } from './app/top-picks-app.js';
export { isListingId } from './domain/listing.js';

export const DEFAULT_SESSION_TTL_MS = 60 * 60_000;
/** How long a resale reserve holds its listing (the cart's hold time). */
export const DEFAULT_RESALE_HOLD_MS = 10 * 60_000;
/** Expired sessions are kept this long (renewable under their id), then purged. */
export const DEFAULT_SESSION_KEEP_MS = 7 * 24 * 60 * 60_000;

export interface TopPicksOptions {
  /** `createTopPicksStorage(stores)`, made in the service's `openServiceStores` (indexes built). */
  storage: TopPicksStorage;
  events: PicksEventSource;
  orders: OrderLookup;
  liveSeats?: LiveSeats;
  /** secure-entry's admitted seats (`secureEntryAdmittedSeats`): an admitted seat is never listed. */
  admittedSeats: AdmittedSeats;
  logger: Logger;
  sessionTtlMs?: number;
  resaleHoldMs?: number;
  sessionKeepMs?: number;
  clock?: Clock;
  ids?: TopPicksIds;
}

/**
 * Top picks, fan sessions and resale listings inside cart: the app over its collections (it is also
 * the cart's resale inventory), its gRPC registration (TopPicksService), the handler of
 * `ticket-scanned` (an admitted seat's listing is withdrawn) and a timer that purges sessions
 * expired for longer than `sessionKeepMs`.
 */
export function composeTopPicks(options: TopPicksOptions) {
  const app = new TopPicksApp({
    ...options.storage,
    events: options.events,
    orders: options.orders,
    ...(options.liveSeats ? { liveSeats: options.liveSeats } : {}),
    admittedSeats: options.admittedSeats,
    clock: options.clock ?? systemClock,
    ids: options.ids ?? cryptoIds,
    log: options.logger,
    settings: {
      sessionTtlMs: options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS,
      resaleHoldMs: options.resaleHoldMs ?? DEFAULT_RESALE_HOLD_MS,
    },
  });
  let timer: NodeJS.Timeout | undefined;
  const keepMs = options.sessionKeepMs ?? DEFAULT_SESSION_KEEP_MS;
  return {
    app,
    grpc: topPicksGrpc(app),
    /** Subscribe it to `ticket-scanned` (one consumer group for the service). */
    ticketScanned: ticketScannedHandler(app),
    start(intervalMs = 10 * 60_000) {
      timer = setInterval(() => {
        app.purgeSessions(keepMs).catch((error: unknown) => {
          options.logger.warn({ err: error }, 'fan session purge failed; next tick retries');
        });
      }, intervalMs);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
