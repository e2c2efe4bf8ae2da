/** Three-dimensional grid and block coordinates, and the linear thread/block numbering CUDA uses. */
export type Dim3 = readonly [number, number, number];

export function volume(d: Dim3): number {
  return d[0] * d[1] * d[2];
}

/** The coordinates of the `linear`-th point of `extent` (x fastest, as CUDA numbers threads). */
export function unflatten(linear: number, extent: Dim3): Dim3 {
  const x = linear % extent[0];
  const rest = (linear - x) / extent[0];
  const y = rest % extent[1];
  return [x, y, (rest - y) / extent[1]];
}

/** `(1, 0, 0)`. */
export function formatDim3(d: Dim3): string {
  return `(${d[0]}, ${d[1]}, ${d[2]})`;
}
