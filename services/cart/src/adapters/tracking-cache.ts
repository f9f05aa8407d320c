import type { TrackingHit, TrackingRepository } from '../app/ports.js';

interface Answer {
  /** The newest hit at or after `since` when it was read, if any. */
  hit: TrackingHit | undefined;
  since: number;
  until: number;
}

/** Beyond this many remembered answers, the expired ones are dropped at the next read. */
const PRUNE_ABOVE = 10_000;

/**
 * Remembers each (app, event)'s newest tracking hit for `ttlMs` after reading it, so a burst of
 * reserves for one event by one app (an on-sale) looks hits up once per interval instead of once
 * per reserve. A hit this process records is seen at once; one recorded by another replica, after
 * at most `ttlMs`. `ttlMs` 0 asks the store every time.
 */
export function rememberingLatestHits(
  repository: TrackingRepository,
  options: { ttlMs: number; now: () => number },
): TrackingRepository {
  if (options.ttlMs <= 0) return repository;
  const answers = new Map<string, Answer>();
  const keyOf = (appId: string, eventId: string) => `${appId}\n${eventId}`;
  const prune = (now: number) => {
    for (const [key, answer] of answers) if (answer.until <= now) answers.delete(key);
  };
  return {
    async insert(hit) {
      await repository.insert(hit);
      const answer = answers.get(keyOf(hit.appId, hit.eventId));
      if (answer && (answer.hit === undefined || hit.at >= answer.hit.at)) answer.hit = hit;
    },
    async latest(appId, eventId, since) {
      const now = options.now();
      const key = keyOf(appId, eventId);
      const answer = answers.get(key);
      // What was the newest hit since an earlier time is the answer for a later one too.
      if (answer !== undefined && answer.until > now && answer.since <= since.getTime()) {
        return answer.hit !== undefined && answer.hit.at >= since ? answer.hit : undefined;
      }
      const hit = await repository.latest(appId, eventId, since);
      if (answers.size >= PRUNE_ABOVE) prune(now);
      answers.set(key, { hit, since: since.getTime(), until: now + options.ttlMs });
      return hit;
    },
  };
}
