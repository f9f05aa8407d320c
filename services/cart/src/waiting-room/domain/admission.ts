/**
 * How many fans the waiting room lets through: as many as the reserve path absorbs, measured,
 * not a constant. The admitter keeps a window of admissions in flight (admitted, not yet spent on
 * a reserve nor expired) and tunes it the way TCP tunes its congestion window (additive increase,
 * multiplicative decrease) from what the reserves of admitted fans met:
 *
 * - a reserve refused for load (the partner or cart answered 503 or 429, or gave no answer) or a
 *   slow reserve path (p95 latency over the target) shrinks the window to 70 %;
 * - a window that was used on a healthy path grows by 10 % (at least one admission): at least
 *   half of it in flight, or reserves since the last tick at least half of it (admitted fans who
 *   reserve at once leave nothing in flight, yet fill the window every tick);
 * - otherwise it stays.
 *
 * Each tick admits `window - inFlight` fans, none once the event sold out.
 */

export interface AdmissionControl {
  /** Admissions that may be in flight at once. */
  window: number;
  min: number;
  max: number;
  /** The reserve latency (p95) above which the path counts as saturated. */
  targetLatencyMs: number;
}

/** What the reserves of admitted fans met since the last tick. */
export interface ReservePathSample {
  reserves: number;
  /** Reserves refused for load (503, 429) or not answered. */
  overloaded: number;
  /** The 95th percentile of their latency; 0 without reserves. */
  p95LatencyMs: number;
}

export const DEFAULT_CONTROL: AdmissionControl = {
  window: 20,
  min: 5,
  max: 2_000,
  targetLatencyMs: 500,
};

/** The window after `sample`, with `inFlight` admissions outstanding during it. */
export function adjustWindow(
  control: AdmissionControl,
  sample: ReservePathSample,
  inFlight: number,
): AdmissionControl {
  const saturated =
    sample.overloaded > 0 || (sample.reserves > 0 && sample.p95LatencyMs > control.targetLatencyMs);
  if (saturated)
    return { ...control, window: Math.max(control.min, Math.floor(control.window * 0.7)) };
  // Used: admissions waited to be spent, or reserves came as fast as the window lets fans in.
  if (inFlight * 2 >= control.window || sample.reserves * 2 >= control.window) {
    const grown = control.window + Math.max(1, Math.floor(control.window * 0.1));
    return { ...control, window: Math.min(control.max, grown) };
  }
  return control;
}

/** How many fans to admit now: the room left in the window, none after a sell-out. */
export function admissionsDue(
  control: AdmissionControl,
  inFlight: number,
  soldOut: boolean,
): number {
  if (soldOut) return 0;
  return Math.max(0, control.window - inFlight);
}
