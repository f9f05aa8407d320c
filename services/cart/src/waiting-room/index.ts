/**
 * The waiting room slice of cart: a fair queue in front of an event's on-sale. Its rules are in
 * `domain/` (order, positions, the admission window, admission tokens), its use cases in `app/`,
 * its storage and token signing in `adapters/`. Cart's reserve path asks `spend` for an admission
 * while an event's queue is on.
 */
export { createAdmissionSigner } from './adapters/admission-signer.js';
export { createWaitingRoomStorage } from './adapters/stores.js';
export type { WaitingRoomDeps, WaitingRoomSettings } from './app/ports.js';
export {
  createWaitingRoom,
  DEFAULT_WAITING_ROOM_SETTINGS,
  type WaitingRoom,
} from './app/waiting-room.js';
export { waitingRoomGrpc } from './ports/grpc/waiting-room-grpc.js';
