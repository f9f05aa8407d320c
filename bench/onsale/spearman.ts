/** Ranks of `values` from 0 (ties share their mean rank). */
function ranks(values: readonly number[]): number[] {
  const order = values.map((value, index) => ({ value, index })).sort((a, b) => a.value - b.value);
  const ranked = new Array<number>(values.length);
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]!.value === order[i]!.value) j += 1;
    for (let k = i; k <= j; k += 1) ranked[order[k]!.index] = (i + j) / 2;
    i = j + 1;
  }
  return ranked;
}

/** Spearman's rank correlation of two equally long lists (Pearson's on their ranks); 0 under 2. */
export function spearman(x: readonly number[], y: readonly number[]): number {
  if (x.length !== y.length) throw new Error('spearman needs lists of one length');
  const n = x.length;
  if (n < 2) return 0;
  const rx = ranks(x);
  const ry = ranks(y);
  const mean = (n - 1) / 2;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i += 1) {
    const dx = rx[i]! - mean;
    const dy = ry[i]! - mean;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx === 0 || syy === 0 ? 0 : sxy / Math.sqrt(sxx * syy);
}
