/**
 * Fixed quota windows (by default 5,000 calls a day, 5 a second). A window is identified by its
 * index since the epoch, so every replica that counts agrees on the window without coordination.
 */
export const DAY_MS = 86_400_000;
export const SECOND_MS = 1_000;

export interface RateWindow {
  /** Key of the counter of this window. */
  key: string;
  /** Epoch ms when the window ends (`Rate-Limit-Reset`). */
  resetEpochMs: number;
}

export function windowOf(appId: string, lengthMs: number, nowMs: number): RateWindow {
  const index = Math.floor(nowMs / lengthMs);
  return { key: `${appId}:${lengthMs}:${index}`, resetEpochMs: (index + 1) * lengthMs };
}
