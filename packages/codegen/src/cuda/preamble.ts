/**
 * Helper definitions a kernel may need, emitted once per translation unit and only when used.
 * Each is wrapped in an include guard so that several generated sources (or headers) can be
 * concatenated into one translation unit.
 */
import { type AsyncCopyFeature, asyncCopyPreamble } from "./async-copy.js";
import { type HalfTypeFeature, halfTypePreamble } from "./half-types.js";
import { type MmaFeature, mmaPreamble } from "./mma.js";
import { type WgmmaFeature, wgmmaPreamble } from "./wgmma.js";
import { type MbarrierFeature, mbarrierPreamble } from "./mbarrier.js";
import { type TmaFeature, tmaPreamble } from "./tma.js";
import { type WmmaFeature, wmmaPreamble } from "./wmma.js";

/** Floor division and modulo for signed integers: C's `/` and `%` truncate toward zero. */
const FLOOR_DIV_MOD = `#ifndef TESSERA_FLOORDIV_DEFINED
#define TESSERA_FLOORDIV_DEFINED
// Floor division and modulo (C's / and % truncate toward zero).
__device__ __forceinline__ int tessera_floordiv(int a, int b) {
  int q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
__device__ __forceinline__ int tessera_floormod(int a, int b) {
  int r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
__device__ __forceinline__ long long tessera_floordiv(long long a, long long b) {
  long long q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
__device__ __forceinline__ long long tessera_floormod(long long a, long long b) {
  long long r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
#endif`;

const LANES: Readonly<Record<string, readonly string[]>> = {
  float2: ["x", "y"],
  float4: ["x", "y", "z", "w"],
  double2: ["x", "y"],
  int2: ["x", "y"],
  int4: ["x", "y", "z", "w"],
};

/** Element-wise `+ - * /` on a built-in vector type (CUDA defines none). */
function vectorOperators(type: string): string {
  const lanes = LANES[type];
  if (lanes === undefined) throw new Error(`no lane list for vector type ${type}`);
  const guard = `TESSERA_${type.toUpperCase()}_OPERATORS`;
  const ops = ["+", "-", "*", "/"].map((op) => {
    const body = lanes.map((l) => `a.${l} ${op} b.${l}`).join(", ");
    return `__device__ __forceinline__ ${type} operator${op}(${type} a, ${type} b) { return make_${type}(${body}); }`;
  });
  return [`#ifndef ${guard}`, `#define ${guard}`, `// Element-wise arithmetic on ${type}.`, ...ops, "#endif"].join("\n");
}

export type Feature =
  | "floordiv"
  | `vector_ops:${string}`
  | AsyncCopyFeature
  | HalfTypeFeature
  | WmmaFeature
  | MmaFeature
  | WgmmaFeature
  | MbarrierFeature
  | TmaFeature;

/** The preamble for a set of features, in a fixed order; empty when nothing is needed. */
export function preamble(features: ReadonlySet<Feature>): string {
  // The 16-bit float headers come first: later helpers may use their types.
  const parts: string[] = halfTypePreamble((f) => features.has(f));
  parts.push(...wmmaPreamble((f) => features.has(f)));
  parts.push(...mmaPreamble((f) => features.has(f)));
  parts.push(...wgmmaPreamble((f) => features.has(f)));
  parts.push(...mbarrierPreamble((f) => features.has(f)));
  parts.push(...tmaPreamble((f) => features.has(f)));
  if (features.has("floordiv")) parts.push(FLOOR_DIV_MOD);
  for (const type of Object.keys(LANES)) {
    if (features.has(`vector_ops:${type}`)) parts.push(vectorOperators(type));
  }
  parts.push(...asyncCopyPreamble((f) => features.has(f)));
  return parts.join("\n\n");
}
