/**
 * Client-side balancing over the replicas of a read service (catalog-indexer, deals), each of which
 * answers from the whole read model: calls go round-robin over the replicas, and a call a replica
 * answers `unavailable` (stopping, restarting, unreachable) is tried once more on the next one, so a
 * rolling restart of a listed replica does not fail requests.
 */

/** `host:port, host:port` → the addresses (a single address is a list of one). */
export function splitAddresses(value: string): string[] {
  const addresses = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  if (addresses.length === 0) throw new Error(`no gRPC address in "${value}"`);
  return addresses;
}

/**
 * How a call should treat a replica whose connection is down. `{ waitForReady: true }` (a call to a
 * replica that does not look healthy, or the retry after `unavailable`) waits within its deadline
 * for the connection to come back instead of failing at once: during a rolling restart the
 * replica that just restarted may not be reconnected yet when the other one stops.
 */
export interface ReplicaCallOptions {
  waitForReady?: boolean;
}

export interface Replicas<T> {
  readonly all: readonly T[];
  /** Runs `call` on the next replica; on `unavailable`, once more on the one after (reads only). */
  call<R>(call: (replica: T, options: ReplicaCallOptions) => Promise<R>): Promise<R>;
  /** Runs `call` on the next replica, never twice: for writes, which a retry could apply twice. */
  once<R>(call: (replica: T) => Promise<R>): Promise<R>;
}

const isUnavailable = (error: unknown): boolean =>
  (error as { kind?: string } | null)?.kind === 'unavailable';

/**
 * `preferred` (optional) says which replicas look healthy (e.g. their change stream is open); the
 * rotation skips the others while at least one looks healthy.
 */
export function replicas<T>(all: readonly T[], preferred?: (replica: T) => boolean): Replicas<T> {
  if (all.length === 0) throw new Error('replicas: empty list');
  let turn = 0;
  /** The next replica, and whether it looks healthy (always, without a `preferred` test). */
  const next = (): [T, boolean] => {
    for (let tried = 0; tried < all.length; tried++) {
      const replica = all[turn++ % all.length]!;
      if (!preferred || preferred(replica)) return [replica, true];
    }
    return [all[turn++ % all.length]!, false];
  };
  return {
    all,
    async call(call) {
      const [first, healthy] = next();
      try {
        return await call(first, healthy ? {} : { waitForReady: true });
      } catch (error) {
        if (all.length === 1 || !isUnavailable(error)) throw error;
        const [second] = next();
        if (second === first) throw error;
        return call(second, { waitForReady: true });
      }
    },
    once: (call) => call(next()[0]),
  };
}
