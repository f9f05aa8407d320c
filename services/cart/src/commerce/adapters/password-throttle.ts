import { isWriteRace, retryingConflicts } from '@marquee/platform/kernel';
import type { StoreIndex, Versioned, VersionedStore } from '@marquee/platform/store';
import type { PasswordAttempts } from '../app/commerce-app.js';

/** Failed presale passwords of one counter (an app or a fan, on one event) in one window. */
export interface PasswordFailureDoc extends Versioned {
  count: number;
  /** The end of the window: the counter is purged after it. */
  expiresAt: Date;
}

export const passwordFailureIndexes: readonly StoreIndex<PasswordFailureDoc>[] = [
  { fields: { expiresAt: 1 } },
];

export interface PasswordThrottleSettings {
  /** Length of a counting window. */
  windowMs: number;
  /** Failed passwords an app may present for one event per window. */
  perApp: number;
  /** Failed passwords a signed-in fan may present for one event per window. */
  perFan: number;
}

/** ErrorInfo reason of a refusal (the commerce API answers 429 with `Retry-After`). */
export const PASSWORD_ATTEMPTS_EXCEEDED = 'password_attempts_exceeded';

/**
 * Throttles guessing of presale passwords (protected offers): the passwords that open nothing are
 * counted per app and event, and per signed-in fan and event, in fixed windows; once a counter of
 * the caller is at its limit, every request with a password is refused (429) until the window
 * ends, before any password is checked. The refusal is the same whether the password given would
 * have been right, so it tells nothing about which codes exist.
 *
 * The counters live in cart's store (Mongo for every replica, `presale_password_failures`), one
 * document per counter and window, incremented by compare-and-set; a window's key is its index
 * since the epoch, so every replica agrees on it. Fixed windows let up to twice the limit through
 * across a window boundary: the limit is what stops enumeration, not a precise rate.
 */
export class PasswordThrottle implements PasswordAttempts {
  constructor(
    private readonly store: VersionedStore<PasswordFailureDoc>,
    private readonly settings: PasswordThrottleSettings,
    private readonly now: () => Date,
  ) {}

  /** Throws the 429 refusal when a counter of the caller is at its limit. */
  async check(who: { appId: string; fanId: string }, eventId: string): Promise<void> {
    const window = this.#window();
    for (const counter of this.#counters(who, eventId)) {
      const doc = await this.store.get(`${counter.key}:${window.index}`);
      if ((doc?.count ?? 0) >= counter.limit) throw this.#refusal(window.endMs);
    }
  }

  /** Counts `failures` passwords that opened nothing. */
  async failed(
    who: { appId: string; fanId: string },
    eventId: string,
    failures: number,
  ): Promise<void> {
    if (failures <= 0) return;
    const window = this.#window();
    for (const counter of this.#counters(who, eventId))
      await this.#add(`${counter.key}:${window.index}`, failures, new Date(window.endMs));
  }

  /** Deletes counters of ended windows; resolves how many. */
  async purgeExpired(limit = 500): Promise<number> {
    const expired = await this.store.find({ expiresAt: { $lte: this.now() } }, { limit });
    let purged = 0;
    for (const doc of expired) {
      try {
        if (await this.store.delete(doc.id, doc.version)) purged += 1;
      } catch (error) {
        if (!isWriteRace(error)) throw error;
      }
    }
    return purged;
  }

  #window() {
    const { windowMs } = this.settings;
    const index = Math.floor(this.now().getTime() / windowMs);
    return { index, endMs: (index + 1) * windowMs };
  }

  #counters(who: { appId: string; fanId: string }, eventId: string) {
    return [
      { key: `app:${who.appId}:${eventId}`, limit: this.settings.perApp },
      ...(who.fanId
        ? [{ key: `fan:${who.appId}:${who.fanId}:${eventId}`, limit: this.settings.perFan }]
        : []),
    ];
  }

  async #add(id: string, amount: number, expiresAt: Date): Promise<void> {
    // Another replica created or changed the counter in between: count again on top of it.
    await retryingConflicts(
      async () => {
        const added = await this.store.modify(id, (doc) => ({ ...doc, count: doc.count + amount }));
        if (!added) await this.store.insert({ id, count: amount, expiresAt });
      },
      { isConflict: isWriteRace },
    );
  }

  #refusal(endMs: number): Error {
    return Object.assign(new Error('too many wrong passwords for this event: try again later'), {
      kind: 'resource_exhausted' as const,
      details: {
        reason: PASSWORD_ATTEMPTS_EXCEEDED,
        retryAfterMs: Math.max(1_000, endMs - this.now().getTime()),
      },
    });
  }
}
