import { errorKindOf } from '@marquee/platform/kernel';

/**
 * Client-side balancing over the replicas of a read service (catalog-indexer, deals), each of which
 * answers from the whole read model: calls go round-robin over the replicas that look healthy, and
 * a read a replica answers `unavailable` (stopping, restarting, unreachable) is tried once more on
 * another replica, never the same one, so a rolling restart of a listed replica does not fail
 * requests. When no replica looks healthy (one has just restarted and is not reconnected yet while
 * the next one stops), a read goes to every replica at once and the first answer wins: which of
 * them is coming back cannot be told from here, and waiting on the one that is gone would cost the
 * whole deadline.
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
  /**
   * A read on the next healthy replica; on `unavailable`, once more on another one. With none
   * healthy, on all of them at once, first answer wins.
   */
  call<R>(call: (replica: T, options: ReplicaCallOptions) => Promise<R>): Promise<R>;
  /** Runs `call` on the next replica, never twice: for writes, which a retry could apply twice. */
  once<R>(call: (replica: T) => Promise<R>): Promise<R>;
}

const isUnavailable = (error: unknown): boolean => errorKindOf(error) === 'unavailable';
/** A failure that says nothing about the read itself: the replica could not be reached in time. */
const isUnreached = (error: unknown): boolean =>
  isUnavailable(error) || errorKindOf(error) === 'deadline_exceeded';

/**
 * `preferred` (optional) says which replicas look healthy (e.g. their change stream is open); the
 * rotation skips the others while at least one looks healthy.
 */
export function replicas<T>(all: readonly T[], preferred?: (replica: T) => boolean): Replicas<T> {
  if (all.length === 0) throw new Error('replicas: empty list');
  let turn = 0;
  const looksHealthy = (replica: T) => !preferred || preferred(replica);
  /** The next healthy replica other than `except`, else the next one other than `except`. */
  const next = (except?: T): T | undefined => {
    let fallback: T | undefined;
    for (let tried = 0; tried < all.length; tried++) {
      const replica = all[turn++ % all.length]!;
      if (replica === except) continue;
      if (looksHealthy(replica)) return replica;
      fallback ??= replica;
    }
    return fallback;
  };

  /**
   * Every replica at once; the first answer (a result, or an error other than unreached) wins, and
   * when every replica fails unreached, the last failure is the answer. The calls that lose are not
   * cancelled: they wait, at no cost to anyone, until their deadline.
   */
  const everywhere = <R>(call: (replica: T, options: ReplicaCallOptions) => Promise<R>) =>
    new Promise<R>((resolve, reject) => {
      let failed = 0;
      for (const replica of all) {
        call(replica, { waitForReady: true }).then(resolve, (error: unknown) => {
          failed += 1;
          if (!isUnreached(error) || failed === all.length) reject(error);
        });
      }
    });

  return {
    all,
    async call(call) {
      const first = next()!;
      if (all.length === 1) return call(first, looksHealthy(first) ? {} : { waitForReady: true });
      if (!looksHealthy(first)) return everywhere(call);
      try {
        return await call(first, {});
      } catch (error) {
        if (!isUnavailable(error)) throw error;
        return call(next(first)!, { waitForReady: true });
      }
    },
    once: (call) => call(next()!),
  };
}
