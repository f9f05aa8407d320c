import { ConnectorError } from '../domain/errors.js';
import type { Partner } from '../domain/partner.js';
import type { CallOptions, PartnerApi, PartnerApiFactory } from './ports.js';

/** The reason of a call refused because its partner's queue is full or the wait ran out. */
export const PARTNER_BUSY = 'partner-busy';

export interface PartnerLimits {
  /** Calls of one partner in flight at once; more wait in its queue. */
  maxConcurrent: number;
  /** Calls of one partner waiting at most; one more is refused at once. */
  queueMax: number;
  /**
   * Longest wait in the queue of a call whose caller gave no deadline (background work: imports,
   * healthchecks, queued cancels). A call with a deadline waits at most until it.
   */
  maxWaitMs: number;
}

/** Wait suggested to a refused caller: 1 to 3 s at random, so refused callers spread out. */
const retryAfterMs = () => 1_000 + Math.floor(Math.random() * 3) * 1_000;

const busy = (why: string) =>
  new ConnectorError('unavailable', `the partner is at its capacity (${why}); retry shortly`, {
    reason: PARTNER_BUSY,
    retryAfterMs: retryAfterMs(),
  });

interface Waiter {
  start: () => void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The calls of one partner: at most `maxConcurrent` in flight, the next ones waiting in a FIFO
 * queue of at most `queueMax`. A call that finds the queue full is refused at once, and one whose
 * wait outlasts its deadline is taken out of the queue and refused, both `unavailable` with reason
 * `partner-busy` and `retryAfterMs`: the partner was not asked, so the caller may simply retry.
 */
export class PartnerLimiter {
  #active = 0;
  readonly #queue: Waiter[] = [];

  constructor(private readonly limits: PartnerLimits) {}

  /** Calls in flight and waiting now. */
  get load(): { active: number; queued: number } {
    return { active: this.#active, queued: this.#queue.length };
  }

  /**
   * Runs `call` once a place is free, with the deadline left after the wait (`undefined` when the
   * caller gave none).
   */
  async run<T>(
    deadlineMs: number | undefined,
    call: (deadlineMs: number | undefined) => Promise<T>,
  ): Promise<T> {
    const waited = await this.#enter(deadlineMs);
    try {
      return await call(deadlineMs === undefined ? undefined : Math.max(1, deadlineMs - waited));
    } finally {
      this.#leave();
    }
  }

  /** Takes a place, waiting in the queue if need be; resolves how long it waited (ms). */
  #enter(deadlineMs: number | undefined): Promise<number> {
    if (this.#active < this.limits.maxConcurrent && this.#queue.length === 0) {
      this.#active += 1;
      return Promise.resolve(0);
    }
    if (this.#queue.length >= this.limits.queueMax) return Promise.reject(busy('queue full'));
    const since = Date.now();
    return new Promise<number>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          clearTimeout(waiter.timer);
          resolve(Date.now() - since);
        },
        timer: setTimeout(
          () => {
            const at = this.#queue.indexOf(waiter);
            if (at >= 0) this.#queue.splice(at, 1);
            reject(busy('no place within the deadline'));
          },
          Math.min(deadlineMs ?? this.limits.maxWaitMs, this.limits.maxWaitMs),
        ),
      };
      this.#queue.push(waiter);
    });
  }

  #leave(): void {
    const next = this.#queue.shift();
    // The place goes to the first waiter as it is (no gap a newcomer could take).
    if (next) next.start();
    else this.#active -= 1;
  }
}

/**
 * `api` with every call through `limiter`, but the healthcheck: the partner's health is what it
 * answers, not how busy this connector keeps it (a healthcheck refused by a full queue would mark
 * a busy partner down).
 */
export function limitedPartnerApi(api: PartnerApi, limiter: PartnerLimiter): PartnerApi {
  const via = <T>(options: CallOptions | undefined, call: (options: CallOptions) => Promise<T>) =>
    limiter.run(options?.deadlineMs, (deadlineMs) => call({ ...options, deadlineMs }));
  return {
    healthcheck: (o) => api.healthcheck(o),
    listEvents: (q, o) => via(o, (x) => api.listEvents(q, x)),
    getEvent: (id, since, o) => via(o, (x) => api.getEvent(id, since, x)),
    getManifest: (id, o) => via(o, (x) => api.getManifest(id, x)),
    getLogo: (id, o) => via(o, (x) => api.getLogo(id, x)),
    getTaxPlan: (id, o) => via(o, (x) => api.getTaxPlan(id, x)),
    getAvailability: (id, q, o) => via(o, (x) => api.getAvailability(id, q, x)),
    createBooking: (b, o) => via(o, (x) => api.createBooking(b, x)),
    releaseBooking: (t, o) => via(o, (x) => api.releaseBooking(t, x)),
    createOrder: (b, o) => via(o, (x) => api.createOrder(b, x)),
    orderAction: (id, b, o) => via(o, (x) => api.orderAction(id, b, x)),
    getOrder: (id, o) => via(o, (x) => api.getOrder(id, x)),
    listOrders: (q, o) => via(o, (x) => api.listOrders(q, x)),
  };
}

/**
 * The partner APIs of `inner`, each partner's calls through one {@link PartnerLimiter} of its own
 * (kept by partner id, so a client made anew after a credential change shares it).
 */
export function limitedPartnerApis(
  inner: PartnerApiFactory,
  limitsOf: (partner: Partner) => PartnerLimits,
): PartnerApiFactory & { limiterOf(partnerId: string): PartnerLimiter | undefined } {
  const limiters = new Map<string, PartnerLimiter>();
  const wrapped = new WeakMap<PartnerApi, PartnerApi>();
  return {
    forPartner(partner) {
      const api = inner.forPartner(partner);
      let limited = wrapped.get(api);
      if (limited === undefined) {
        let limiter = limiters.get(partner.id);
        if (limiter === undefined) {
          limiter = new PartnerLimiter(limitsOf(partner));
          limiters.set(partner.id, limiter);
        }
        limited = limitedPartnerApi(api, limiter);
        wrapped.set(api, limited);
      }
      return limited;
    },
    limiterOf: (partnerId) => limiters.get(partnerId),
  };
}
