/** TVM's `slog`: sign(x) · log2(1 + |x|), so that counts spanning many orders of magnitude stay comparable. */
export function slog(x: number): number {
  if (!Number.isFinite(x)) return x > 0 ? 64 : x < 0 ? -64 : 0;
  return x < 0 ? -Math.log2(1 - x) : Math.log2(1 + x);
}
