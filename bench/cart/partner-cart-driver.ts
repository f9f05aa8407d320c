/**
 * The benchmarks' client of the edge's partner cart (`/partners/v1/events/{id}/cart`), on an undici
 * pool: a reserve asked again as the API says (same Idempotency-Key) after a shed (503), a quota
 * refusal (429), a deadline (504) or a retry that met its first attempt still running (409
 * `idempotency-key-in-progress`), a 202 (PENDING) polled after each Retry-After until the reserve
 * ends, and the release of the cart, also retried. Every answer is tallied by status, with the
 * first body of each unexpected one, for the report. Used by `cart-reserve` and `resources`.
 */
import type { Pool } from 'undici';

export interface Tally {
  [label: string]: number;
}
export const count = (tally: Tally, label: string | number) => {
  tally[label] = (tally[label] ?? 0) + 1;
};

/** Which calls count: `measured(t)` says whether time t is inside the clock; `stopped()`, give up. */
export interface CartClock {
  measured(at: number): boolean;
  stopped(): boolean;
}

/** One reserve: the cart (when the reserve answered one), its times, and when it was held. */
export interface Reserved {
  cartId?: string;
  /** When the first attempt was sent (performance.now()). */
  first: number;
  /** The attempt answered 200 or 202: when it was sent and answered. */
  sent?: number;
  answered?: number;
  /** When the cart was seen held (the 200 answer or poll); undefined when it never was. */
  heldAt?: number;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds to wait as an answer's Retry-After says (1 s without one), at most 5 s. */
const retryAfter = (headers: Record<string, string | string[] | undefined>) =>
  Math.min(5, Math.max(0, Number(headers['retry-after'] ?? 1) || 1)) * 1000;

export function partnerCartDriver(pool: Pool, apiKey: string, eventId: string) {
  const cartPath = `/partners/v1/events/${eventId}/cart`;
  const tally = {
    /** Reserve answers by status (attempts sent in the clock). */
    reserveAnswers: {} as Tally,
    /** How a PENDING reserve ended (`held` or the poll's status). */
    pendingOutcomes: {} as Tally,
    releaseAnswers: {} as Tally,
    /** The first body of each unexpected answer, by step and status. */
    examples: {} as Record<string, string>,
    /** Reserves shed (503) in the clock. */
    sheds: 0,
    networkErrors: 0,
  };
  const ask = async (method: 'POST' | 'GET' | 'DELETE', path: string, body?: unknown, key = '') =>
    pool.request({
      path,
      method,
      headers: {
        'x-api-key': apiKey,
        ...(key ? { 'idempotency-key': key } : {}),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });

  /** Reserves `quantity` tickets of `ticketId` with Idempotency-Key `key`, to held or failed. */
  async function reserve(
    key: string,
    clock: CartClock,
    tickets: Array<{ id: string; quantity: number }> = [{ id: 'ADULT', quantity: 1 }],
  ): Promise<Reserved> {
    const result: Reserved = { first: performance.now() };
    let pollPath: string | undefined;
    let pollWait = 1000;
    for (let attempt = 1; attempt <= 50 && !clock.stopped(); attempt++) {
      const sent = performance.now();
      let response;
      try {
        response = await ask('POST', cartPath, { reserve: { tickets } }, key);
      } catch {
        if (clock.measured(sent)) tally.networkErrors += 1;
        await delay(1000);
        continue;
      }
      const text = await response.body.text();
      const answered = performance.now();
      const status = response.statusCode;
      if (clock.measured(sent)) count(tally.reserveAnswers, status);
      // Asked again with the same key, as the API says: a shed (503), a quota refusal (429), a
      // deadline (504: the reserve may have gone on and hold a cart, which the retry answers) and
      // a retry that met its first attempt still running.
      if (
        status === 503 ||
        status === 429 ||
        status === 504 ||
        (status === 409 && text.includes('idempotency-key-in-progress'))
      ) {
        if (status === 503 && clock.measured(sent)) tally.sheds += 1;
        if (status !== 503) tally.examples[`reserve ${status}`] ??= text.slice(0, 300);
        await delay(retryAfter(response.headers));
        continue;
      }
      if (status !== 200 && status !== 202) {
        tally.examples[`reserve ${status}`] ??= text.slice(0, 300);
        await delay(100);
        return result;
      }
      const cart = JSON.parse(text) as { cart_id: string; polling_url?: string };
      Object.assign(result, { cartId: cart.cart_id, sent, answered });
      if (status === 200) result.heldAt = answered;
      else {
        pollPath = cart.polling_url ?? `${cartPath}?cart_id=${encodeURIComponent(cart.cart_id)}`;
        pollWait = retryAfter(response.headers);
      }
      break;
    }
    // A PENDING cart: read it after each Retry-After until the reserve ends.
    while (pollPath && !clock.stopped()) {
      await delay(pollWait);
      let polled;
      try {
        polled = await ask('GET', pollPath);
      } catch {
        continue;
      }
      const text = await polled.body.text();
      const at = performance.now();
      if (polled.statusCode === 202 || polled.statusCode === 503) {
        pollWait = retryAfter(polled.headers);
        continue;
      }
      if (clock.measured(result.first))
        count(tally.pendingOutcomes, polled.statusCode === 200 ? 'held' : polled.statusCode);
      if (polled.statusCode === 200) result.heldAt = at;
      else tally.examples[`poll ${polled.statusCode}`] ??= text.slice(0, 300);
      pollPath = undefined;
    }
    return result;
  }

  /**
   * Releases a cart (idempotent: also one whose reserve failed or was left pending); its answers
   * are counted when `countedAt` is in the clock.
   */
  async function release(cartId: string, clock: CartClock, countedAt: number): Promise<void> {
    for (let attempt = 1; attempt <= 10; attempt++) {
      try {
        const released = await ask('DELETE', `${cartPath}?cart_id=${encodeURIComponent(cartId)}`);
        const text = await released.body.text();
        if (clock.measured(countedAt)) count(tally.releaseAnswers, released.statusCode);
        if (released.statusCode === 503 || released.statusCode === 504) {
          await delay(retryAfter(released.headers));
          continue;
        }
        if (released.statusCode !== 204)
          tally.examples[`release ${released.statusCode}`] ??= text.slice(0, 300);
      } catch {
        await delay(1000);
        continue;
      }
      break;
    }
  }

  return { cartPath, tally, reserve, release };
}
