/**
 * Workloads built directly with the core IR constructors (no TE), shared by the executor's
 * benchmark and tests.
 */
import { declBuffer } from "../src/buffer.js";
import type { DType } from "../src/dtype.js";
import { add, bufferLoad, floatImm, mul, variable } from "../src/expr.js";
import { type PrimFunc, primFunc } from "../src/func.js";
import { block, blockRealize, bufferRegion, bufferStore, forLoop, iterVar, range, rangeFromExtent } from "../src/stmt.js";

/**
 * `C[i, j] = Σ_k A[i, k] · B[k, j]` as the plain TE-style triple loop: one block "C" with
 * iterators `vi, vj` (spatial) and `vk` (reduce), `C[vi, vj] = 0` as its init.
 */
export function matmulFunc(n: number, m = n, l = n, dt: DType = "float32"): PrimFunc {
  const A = declBuffer("A", [n, l], dt);
  const B = declBuffer("B", [l, m], dt);
  const C = declBuffer("C", [n, m], dt);
  const [i, j, k] = [variable("i"), variable("j"), variable("k")];
  const [vi, vj, vk] = [variable("vi"), variable("vj"), variable("vk")];
  const body = bufferStore(C, add(bufferLoad(C, [vi, vj]), mul(bufferLoad(A, [vi, vk]), bufferLoad(B, [vk, vj]))), [vi, vj]);
  const blk = block({
    name: "C",
    iterVars: [iterVar(vi, rangeFromExtent(n), "spatial"), iterVar(vj, rangeFromExtent(m), "spatial"), iterVar(vk, rangeFromExtent(l), "reduce")],
    reads: [bufferRegion(A, [range(vi, 1), range(0, l)]), bufferRegion(B, [range(0, l), range(vj, 1)])],
    writes: [bufferRegion(C, [range(vi, 1), range(vj, 1)])],
    init: bufferStore(C, floatImm(0, dt), [vi, vj]),
    body,
  });
  const loops = forLoop(i, n, forLoop(j, m, forLoop(k, l, blockRealize([i, j, k], true, blk))));
  const root = blockRealize([], true, block({ name: "root", body: loops }));
  const [a, b, c] = [variable("a", "handle"), variable("b", "handle"), variable("c", "handle")];
  return primFunc(
    [a, b, c],
    new Map([
      [a, A],
      [b, B],
      [c, C],
    ]),
    root,
    { global_symbol: "matmul", "tir.noalias": true },
  );
}

/** The naive JS reference of `matmulFunc` with float32 rounding after every operation. */
export function referenceMatmulF32(a: Float32Array, b: Float32Array, n: number, m = n, l = n): Float32Array {
  const c = new Float32Array(n * m);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      let acc = 0;
      for (let k = 0; k < l; k++) acc = Math.fround(acc + Math.fround(a[i * l + k]! * b[k * m + j]!));
      c[i * m + j] = acc;
    }
  }
  return c;
}
