import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The gRPC call being served, as far as its deadline goes. A handler runs inside it (server.ts), so
 * the calls it makes inherit what is left of its caller's deadline (client.ts: deadline
 * propagation, as gRPC's own implementations do with a parent call), and work can ask whether the
 * caller still waits before starting something it cannot take back.
 */
export interface IncomingCall {
  /** Epoch ms; `Infinity` when the caller set none. */
  readonly deadline: number;
  /** True once the client cancelled or its deadline passed. */
  cancelled(): boolean;
}

const storage = new AsyncLocalStorage<IncomingCall>();

export function runInIncomingCall<T>(call: IncomingCall, fn: () => T): T {
  return storage.run(call, fn);
}

/** The call being served, if this code runs for one. */
export function incomingCall(): IncomingCall | undefined {
  return storage.getStore();
}

/**
 * True when the call this code serves is over for its caller (cancelled, or past its deadline):
 * check before a write the caller would never hear of.
 */
export function callerGaveUp(now: number = Date.now()): boolean {
  const call = storage.getStore();
  return call !== undefined && (call.cancelled() || now >= call.deadline);
}

/**
 * Runs `fn` outside the call being served: for work a handler starts that must outlive its answer
 * (a reservation finishing in the background after a 202), whose calls must not inherit the
 * caller's deadline.
 */
export function detachedFromCall<T>(fn: () => T): T {
  return storage.exit(fn);
}

/** The deadline an outgoing call gets: its own, never past the one of the call being served. */
export function propagatedDeadline(own: number): number {
  const call = storage.getStore();
  return call === undefined ? own : Math.min(own, call.deadline);
}
