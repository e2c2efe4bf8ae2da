/** Spearman's rank correlation, ties ranked by their mean position. */
function ranks(xs: readonly number[]): number[] {
  const order = xs.map((x, k) => [x, k] as const).sort((a, b) => a[0] - b[0]);
  const r = new Array<number>(xs.length);
  for (let p = 0; p < order.length; ) {
    let q = p;
    while (q + 1 < order.length && order[q + 1]![0] === order[p]![0]) q++;
    for (let k = p; k <= q; k++) r[order[k]![1]] = (p + q) / 2;
    p = q + 1;
  }
  return r;
}

export function spearman(a: readonly number[], b: readonly number[]): number {
  const ra = ranks(a);
  const rb = ranks(b);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const ma = mean(ra);
  const mb = mean(rb);
  let num = 0;
  let da = 0;
  let db = 0;
  ra.forEach((x, k) => {
    num += (x - ma) * (rb[k]! - mb);
    da += (x - ma) ** 2;
    db += (rb[k]! - mb) ** 2;
  });
  return num / Math.sqrt(da * db);
}
