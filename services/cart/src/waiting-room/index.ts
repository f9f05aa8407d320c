/**
 * The waiting room slice of cart: a fair queue in front of an event's on-sale. Its rules are in
 * `domain/` (order, positions, the admission window, admission tokens), its use cases in `app/`,
 * its storage, token signing, probe and admitter loop in `adapters/`, its gRPC service in
 * `ports/`. Cart's reserve path goes through `gate` (cart's `ReserveGate` port), which spends an
 * admission while an event's queue is on. `composeWaitingRoom` is what cart's composition root
 * calls.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '@marquee/platform/logger';
import type { GrpcRegistration } from '@marquee/platform/service';
import type { CartRepository, ReserveGate, SoldOutBook } from '../app/ports.js';
import { createAdmissionSigner } from './adapters/admission-signer.js';
import { admitterLoop } from './adapters/admitter-loop.js';
import { createAppHoldings } from './adapters/app-holdings.js';
import { waitingRoomIds } from './adapters/ids.js';
import { createOnSaleWatch } from './adapters/onsale-watch.js';
import { createReserveProbe } from './adapters/reserve-probe.js';
import type { createWaitingRoomStorage } from './adapters/stores.js';
import type { WaitingRoomClock, WaitingRoomSettings } from './app/ports.js';
import { WaitingRoomGate } from './app/reserve-gate.js';
import { createWaitingRoom, DEFAULT_WAITING_ROOM_SETTINGS } from './app/waiting-room.js';
import { waitingRoomGrpc } from './ports/grpc/waiting-room-grpc.js';

export { createAdmissionSigner } from './adapters/admission-signer.js';
export { createAppHoldings } from './adapters/app-holdings.js';
export { createWaitingRoomStorage } from './adapters/stores.js';
export type { WaitingRoomDeps, WaitingRoomSettings } from './app/ports.js';
export {
  createWaitingRoom,
  DEFAULT_WAITING_ROOM_SETTINGS,
  type WaitingRoom,
} from './app/waiting-room.js';
export { waitingRoomGrpc } from './ports/grpc/waiting-room-grpc.js';

/** How often a replica reads an event's on-sale while its fans long-poll (one read for them all). */
const WATCH_POLL_MS = 500;

export function composeWaitingRoom(input: {
  storage: ReturnType<typeof createWaitingRoomStorage>;
  /** At least 32 bytes; the same in every replica (tokens are checked by any of them). */
  admissionKey: Buffer;
  clock: WaitingRoomClock;
  logger: Logger;
  /** Cart's sold-out book: a failed reserve of an event it holds sold out ends the queue's sale. */
  soldOutBook: Pick<SoldOutBook, 'isSoldOut'>;
  /**
   * Cart's carts and default held-ticket quota (`CART_HELD_TICKETS_PER_EVENT`): the admitter
   * admits a fan only while its app has room under its quota.
   */
  holdings: { carts: Pick<CartRepository, 'findLive'>; defaultLimit: number | undefined };
  /** Pause between the admitter's ticks. */
  tickMs: number;
  settings?: Partial<WaitingRoomSettings>;
}): {
  grpc: GrpcRegistration;
  gate: ReserveGate & { placesReturned(eventId: string): void };
  start(): void;
  stop(): Promise<void>;
} {
  const probe = createReserveProbe();
  const watch = createOnSaleWatch(input.storage.onSales, {
    pollMs: WATCH_POLL_MS,
    onError: (err) => input.logger.warn({ err }, 'reading an on-sale for waiting fans failed'),
  });
  const room = createWaitingRoom(
    {
      ...input.storage,
      signer: createAdmissionSigner(input.admissionKey),
      probe,
      holdings: createAppHoldings(input.holdings.carts, input.holdings.defaultLimit),
      watch,
      clock: input.clock,
      ids: waitingRoomIds(input.admissionKey),
      settings: { ...DEFAULT_WAITING_ROOM_SETTINGS, ...input.settings },
    },
    `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`,
  );
  const gate = new WaitingRoomGate({
    spend: room.spend,
    soldOut: room.soldOut,
    watch,
    book: input.soldOutBook,
    recorder: probe,
    clock: input.clock,
    log: input.logger,
  });
  const loop = admitterLoop({
    admitter: room.admitter,
    onSales: input.storage.onSales,
    tickets: input.storage.tickets,
    tickMs: input.tickMs,
    onError: (err) =>
      input.logger.warn({ err }, 'waiting room admitter tick failed; next tick retries'),
  });
  return {
    grpc: waitingRoomGrpc(room, (eventId) => watch.forget(eventId)),
    gate,
    start: () => loop.start(),
    stop: async () => {
      await loop.stop();
      loop.stopGauge();
      watch.stop();
    },
  };
}
