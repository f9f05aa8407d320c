/** The `p`th percentile (nearest rank) of ascending `sorted` values; 0 when there are none. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length
    ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
    : 0;
