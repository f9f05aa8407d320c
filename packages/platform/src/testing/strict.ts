/**
 * Whether a suite that cannot run here (no Kafka, no Chromium, no Python venv, ...) must fail
 * instead of skipping itself loudly: under CI (`CI=true` or `1`), and whenever `pnpm test`
 * (scripts/test.mjs) runs a tier, which sets `MARQUEE_TEST_STRICT=1` for every tier it was asked
 * to run. A bare `vitest run` by hand still skips, with the reason, so one file can be tried on a
 * machine without the infrastructure.
 */
export function skipIsFailure(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env['CI']?.toLowerCase();
  return ci === 'true' || ci === '1' || env['MARQUEE_TEST_STRICT'] === '1';
}

/** The words a failed requirement ends with: why the skip was turned into a failure. */
export const STRICT_REASON =
  'a skip is a failure under CI=true and in `pnpm test` (MARQUEE_TEST_STRICT=1)';
