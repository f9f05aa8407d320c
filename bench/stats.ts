/** The `p`th percentile (nearest rank) of ascending `sorted` values; 0 when there are none. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length
    ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
    : 0;

/** The latency percentiles (ms) of an autocannon result, as the bench reports print them. */
export const latencyMsOf = (result: {
  latency: { p50: number; p90: number; p99: number; max: number };
}) => ({
  p50: result.latency.p50,
  p90: result.latency.p90,
  p99: result.latency.p99,
  max: result.latency.max,
});
