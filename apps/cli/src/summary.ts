import type { Buffer, TypedArray } from "@tessera/ir";

/** One line describing an array: shape, dtype, statistics, a checksum and the first values. */
export function summarizeArray(buffer: Buffer, data: TypedArray): string {
  const shape = buffer.shape.map((s) => (s.kind === "IntImm" ? String(s.value) : "?")).join("×");
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let nan = 0;
  for (let i = 0; i < data.length; i++) {
    const v = Number(data[i]);
    if (Number.isNaN(v)) {
      nan++;
      continue;
    }
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
  }
  const counted = data.length - nan;
  const stats = counted === 0 ? "no finite values" : `min ${fmt(min)} max ${fmt(max)} mean ${fmt(sum / counted)} sum ${fmt(sum)}`;
  const head = Array.from(data.subarray(0, 4), (v) => fmt(Number(v))).join(", ");
  const more = data.length > 4 ? ", …" : "";
  return `${shape} ${buffer.dtype}  ${stats}${nan > 0 ? `  NaN ${nan}` : ""}  [${head}${more}]`;
}

function fmt(v: number): string {
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) >= 1e5 || Math.abs(v) < 1e-3 ? v.toExponential(4) : v.toFixed(5);
}
