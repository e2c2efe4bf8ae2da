/** IR built by hand for the structural tests, parameterised by names so renamed copies are easy. */
import { declBuffer } from "../../src/buffer.js";
import { type PrimExpr, add, bufferLoad, floatImm, max, mul, variable } from "../../src/expr.js";
import { type PrimFunc, primFunc } from "../../src/func.js";
import { type Stmt, block, blockRealize, bufferRegion, bufferStore, forLoop, iterVar, range, rangeFromExtent, seq } from "../../src/stmt.js";

export interface MatmulOptions {
  prefix?: string;
  n?: number;
  dtype?: string;
  blockName?: string;
  annotations?: Record<string, string | number>;
  reluZero?: number;
}

/** `C = A @ B; D = relu(C)` with an init block, as the parser would produce it. */
export function matmulRelu(opts: MatmulOptions = {}): PrimFunc {
  const p = opts.prefix ?? "";
  const n = opts.n ?? 128;
  const dt = opts.dtype ?? "float32";
  const [a, b, d] = [variable(`${p}a`, "handle"), variable(`${p}b`, "handle"), variable(`${p}d`, "handle")];
  const A = declBuffer(`${p}A`, [n, n], dt);
  const B = declBuffer(`${p}B`, [n, n], dt);
  const C = declBuffer(`${p}C`, [n, n], dt);
  const D = declBuffer(`${p}D`, [n, n], dt);
  const [i, j, k] = [variable(`${p}i`), variable(`${p}j`), variable(`${p}k`)];
  const [vi, vj, vk] = [variable(`${p}vi`), variable(`${p}vj`), variable(`${p}vk`)];
  const point = (v: PrimExpr) => range(v, 1);
  const matmul = block({
    name: opts.blockName ?? "C",
    iterVars: [iterVar(vi, rangeFromExtent(n), "spatial"), iterVar(vj, rangeFromExtent(n), "spatial"), iterVar(vk, rangeFromExtent(n), "reduce")],
    reads: [bufferRegion(A, [point(vi), point(vk)]), bufferRegion(B, [point(vk), point(vj)])],
    writes: [bufferRegion(C, [point(vi), point(vj)])],
    init: bufferStore(C, floatImm(0, dt), [vi, vj]),
    body: bufferStore(C, add(bufferLoad(C, [vi, vj]), mul(bufferLoad(A, [vi, vk]), bufferLoad(B, [vk, vj]))), [vi, vj]),
    annotations: opts.annotations ?? {},
  });
  const matmulNest = forLoop(i, n, forLoop(j, n, forLoop(k, n, blockRealize([i, j, k], true, matmul))));
  const [i2, j2, ri, rj] = [variable(`${p}i`), variable(`${p}j`), variable(`${p}vi`), variable(`${p}vj`)];
  const relu = block({
    name: "relu",
    iterVars: [iterVar(ri, rangeFromExtent(n), "spatial"), iterVar(rj, rangeFromExtent(n), "spatial")],
    reads: [bufferRegion(C, [point(ri), point(rj)])],
    writes: [bufferRegion(D, [point(ri), point(rj)])],
    body: bufferStore(D, max(bufferLoad(C, [ri, rj]), floatImm(opts.reluZero ?? 0, dt)), [ri, rj]),
  });
  const reluNest = forLoop(i2, n, forLoop(j2, n, blockRealize([i2, j2], true, relu)));
  const root = block({ name: "root", body: seq([matmulNest, reluNest]), allocBuffers: [C] });
  const body: Stmt = blockRealize([], true, root);
  return primFunc(
    [a, b, d],
    new Map([
      [a, A],
      [b, B],
      [d, D],
    ]),
    body,
    { global_symbol: "main", "tir.noalias": true },
  );
}
