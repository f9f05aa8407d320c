/**
 * When tokens are delivered and re-keyed, relative to the event's start (from `event-changed`).
 * Without a known start, tokens are delivered at once and never re-keyed by time.
 */
const HOUR_MS = 3_600_000;

/** Delayed delivery: the instant tokens become available, or undefined when available now. */
export function tokenAvailableAt(
  startsAt: Date | undefined,
  delayHours: number,
  now: Date,
): Date | undefined {
  if (!startsAt || delayHours <= 0) return undefined;
  const at = new Date(startsAt.getTime() - delayHours * HOUR_MS);
  return at.getTime() > now.getTime() ? at : undefined;
}

/**
 * Whether showing the ticket now must re-key it: the event starts within `refreshHours` and the
 * current generation was keyed before that point (so a token copied days earlier stops working).
 */
export function refreshDue(
  startsAt: Date | undefined,
  refreshHours: number,
  generationAt: Date,
  now: Date,
): boolean {
  if (!startsAt || refreshHours <= 0) return false;
  const point = startsAt.getTime() - refreshHours * HOUR_MS;
  return now.getTime() >= point && generationAt.getTime() < point;
}
