import type { Money } from '@marquee/platform/money';

/** The message of a top picks answer made under a fan session that had expired and was renewed. */
export const SESSION_EXPIRED_MESSAGE = 'SESSION_HAS_EXPIRED_PRICE_MIGHT_HAVE_CHANGED';

/** Fan session ids the platform issues: 32 random bytes, base64url (43 characters). */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A price shown to the fan under the session, by resale listing id. */
export interface ShownPrice extends Money {
  key: string;
  shownAt: Date;
}

/**
 * A fan session (`X-PLATFORM-SESSION-SID`): it belongs to the app that created it and records the
 * resale prices shown under it, so a resale reserve under the live session pays what the fan saw.
 */
export interface FanSession {
  id: string;
  appId: string;
  /** Start of the session or of its last renewal. */
  startedAt: Date;
  expiresAt: Date;
  /** When the id was first issued (renewals keep it). */
  createdAt: Date;
  renewals: number;
  shownPrices: ShownPrice[];
}

export type SessionOutcome = 'created' | 'active' | 'renewed';

/** At most this many prices per session (the most recently shown are kept). */
export const MAX_SHOWN_PRICES = 500;

export const isLive = (session: FanSession, now: Date): boolean =>
  now.getTime() < session.expiresAt.getTime();

/**
 * The session a top picks request runs under, from the one its header named (`presented`: the stored
 * session of that id, or `undefined` when no header came, the id is unknown or belongs to another app):
 * - none → a new session with a fresh id (`created`); a client can never choose an id;
 * - live → returned as is (`active`);
 * - expired → renewed with the same id (`renewed`): a new start and expiry, and the prices it had
 *   recorded are forgotten (the answer carries `SESSION_HAS_EXPIRED_PRICE_MIGHT_HAVE_CHANGED`).
 */
export function resolveSession(
  presented: FanSession | undefined,
  context: { appId: string; now: Date; ttlMs: number; newId: () => string },
): { session: FanSession; outcome: SessionOutcome } {
  const { appId, now, ttlMs } = context;
  const expiresAt = new Date(now.getTime() + ttlMs);
  if (!presented) {
    return {
      outcome: 'created',
      session: {
        id: context.newId(),
        appId,
        startedAt: now,
        expiresAt,
        createdAt: now,
        renewals: 0,
        shownPrices: [],
      },
    };
  }
  if (isLive(presented, now)) return { outcome: 'active', session: presented };
  return {
    outcome: 'renewed',
    session: {
      ...presented,
      startedAt: now,
      expiresAt,
      renewals: presented.renewals + 1,
      shownPrices: [],
    },
  };
}

/** The price recorded for `key` while the session is live; `undefined` otherwise. */
export function shownPrice(
  session: FanSession | undefined,
  key: string,
  now: Date,
): Money | undefined {
  if (!session || !isLive(session, now)) return undefined;
  const found = session.shownPrices.find((p) => p.key === key);
  return found && { amountMinor: found.amountMinor, currency: found.currency };
}

/**
 * Records the prices shown now. A key seen for the first time is added; a key already recorded keeps
 * the lower of the two (the fan never pays more than the lowest price shown in the live session, and
 * a seller's later increase does not reach them). The oldest keys are dropped beyond the cap.
 * Returns `undefined` when nothing changes (no write needed).
 */
export function recordShownPrices(
  session: FanSession,
  prices: readonly (Money & { key: string })[],
  now: Date,
): FanSession | undefined {
  const recorded = new Map(session.shownPrices.map((p) => [p.key, p]));
  let changed = false;
  for (const price of prices) {
    const before = recorded.get(price.key);
    if (before && (before.currency !== price.currency || before.amountMinor <= price.amountMinor))
      continue;
    recorded.delete(price.key); // re-inserted last: the most recently shown survive the cap
    recorded.set(price.key, {
      key: price.key,
      amountMinor: price.amountMinor,
      currency: price.currency,
      shownAt: now,
    });
    changed = true;
  }
  if (!changed) return undefined;
  const all = [...recorded.values()];
  return { ...session, shownPrices: all.slice(Math.max(0, all.length - MAX_SHOWN_PRICES)) };
}

/**
 * The price a fan sees (and reserves at) for a listing: the one recorded in the live session when
 * lower than the current asking price, otherwise the current one.
 */
export function priceForFan(
  session: FanSession | undefined,
  key: string,
  current: Money,
  now: Date,
): Money {
  const recorded = shownPrice(session, key, now);
  return recorded &&
    recorded.currency === current.currency &&
    recorded.amountMinor < current.amountMinor
    ? recorded
    : current;
}
