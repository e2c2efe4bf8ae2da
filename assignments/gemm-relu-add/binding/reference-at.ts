/**
 * The reference the sampled simulator check (sampled-numerics.ts) compares its thread blocks' tiles
 * with: D = ReLU(A·B) + C on the host (float64 accumulation) at the elements `indices` (flat row-major
 * indices into the n×n output) only: `out[k]` is D at `indices[k]`. For checking a sample of a
 * large output (a few thread blocks' tiles) without computing all n³ products. Rows that ask for
 * the same columns (the rows of a tile) are computed together: those columns of B are copied once,
 * transposed, and each element is a dot product of two contiguous rows, summed over k in order.
 */
export function gemmReluAddReferenceAt(A: Float32Array, B: Float32Array, C: Float32Array, n: number, indices: ArrayLike<number>): Float64Array {
  const out = new Float64Array(indices.length);
  for (const group of rowGroups(n, indices)) {
    const { rows, cols } = group;
    const bt = transposedColumns(B, n, cols);
    const dots = new Float64Array(rows.length * cols.length);
    rowTimesColumns(A, n, rows, bt, cols.length, dots);
    group.positions.forEach((positions, r) => {
      positions.forEach((k, c) => (out[k] = Math.max(dots[r * cols.length + c]!, 0) + C[rows[r]! * n + cols[c]!]!));
    });
  }
  return out;
}

/** Columns `cols` of the n×n matrix B as rows: `bt[c * n + k] = B[k][cols[c]]`. */
function transposedColumns(B: Float32Array, n: number, cols: readonly number[]): Float64Array {
  const bt = new Float64Array(cols.length * n);
  for (let k = 0; k < n; k++) {
    const row = k * n;
    for (let c = 0; c < cols.length; c++) bt[c * n + k] = B[row + cols[c]!]!;
  }
  return bt;
}

/**
 * `dots[r * width + c] = Σ_k A[rows[r]][k] · bt[c][k]`, k ascending, in float64. Pairs of rows
 * and pairs of columns share their loads (four sums per step); the sums are the same as one by one.
 */
function rowTimesColumns(A: Float32Array, n: number, rows: readonly number[], bt: Float64Array, width: number, dots: Float64Array): void {
  for (let r = 0; r < rows.length; r += 2) {
    const a0 = rows[r]! * n;
    const pair = r + 1 < rows.length;
    const a1 = pair ? rows[r + 1]! * n : a0;
    for (let c = 0; c < width; c += 2) {
      const b0 = c * n;
      const b1 = c + 1 < width ? b0 + n : b0;
      let s00 = 0;
      let s01 = 0;
      let s10 = 0;
      let s11 = 0;
      for (let k = 0; k < n; k++) {
        const x0 = A[a0 + k]!;
        const x1 = A[a1 + k]!;
        const y0 = bt[b0 + k]!;
        const y1 = bt[b1 + k]!;
        s00 += x0 * y0;
        s01 += x0 * y1;
        s10 += x1 * y0;
        s11 += x1 * y1;
      }
      dots[r * width + c] = s00;
      if (c + 1 < width) dots[r * width + c + 1] = s01;
      if (pair) {
        dots[(r + 1) * width + c] = s10;
        if (c + 1 < width) dots[(r + 1) * width + c + 1] = s11;
      }
    }
  }
}

/** Rows of the requested elements, grouped by the list of columns they ask for; `positions[r][c]` is the index into `indices`. */
function rowGroups(n: number, indices: ArrayLike<number>): { rows: number[]; cols: number[]; positions: number[][] }[] {
  const byRow = new Map<number, { cols: number[]; positions: number[] }>();
  for (let k = 0; k < indices.length; k++) {
    const flat = indices[k]!;
    if (!Number.isInteger(flat) || flat < 0 || flat >= n * n) {
      throw new RangeError(`gemmReluAddReferenceAt: index ${flat} (position ${k}) is outside the ${n}×${n} output`);
    }
    const row = Math.floor(flat / n);
    let entry = byRow.get(row);
    if (entry === undefined) byRow.set(row, (entry = { cols: [], positions: [] }));
    entry.cols.push(flat - row * n);
    entry.positions.push(k);
  }
  const groups = new Map<string, { rows: number[]; cols: number[]; positions: number[][] }>();
  for (const [row, { cols, positions }] of byRow) {
    const key = cols.join(",");
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = { rows: [], cols, positions: [] }));
    g.rows.push(row);
    g.positions.push(positions);
  }
  return [...groups.values()];
}
