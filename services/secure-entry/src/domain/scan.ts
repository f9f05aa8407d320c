import { STEP_SECONDS } from '@marquee/render-kit/format';

/** RFC 6238 section 5.2: accept the previous and the next step too (clock drift, scan latency). */
export const STEP_TOLERANCE = 1;

/** Whether a payload's time step is current for a gate whose clock says `nowMs`. */
export function stepIsCurrent(payloadStep: number, nowMs: number): boolean {
  const current = Math.floor(nowMs / 1000 / STEP_SECONDS);
  return Math.abs(payloadStep - current) <= STEP_TOLERANCE;
}

/** The time step a payload timestamp (unix seconds) falls in. */
export const stepOfSeconds = (seconds: number) => Math.floor(seconds / STEP_SECONDS);
