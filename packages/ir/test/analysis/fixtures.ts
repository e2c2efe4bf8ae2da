/** Small hand-built PrimFuncs shared by the analysis tests. */
import { type Buffer, declBuffer } from "../../src/buffer.js";
import { type PrimExpr, add, bufferLoad, mul, variable, floatImm } from "../../src/expr.js";
import { primFunc, type PrimFunc } from "../../src/func.js";
import { type Block, type BufferRegion, block, blockRealize, bufferStore, forLoop, iterVar, range, rangeFromExtent } from "../../src/stmt.js";
import { show } from "../arith/exprTestUtils.js";
import { simplify } from "../../src/arith/index.js";

/** `A[vi, 0:8]`-style text for a region, as TVMScript prints it. */
export function showRegion(r: BufferRegion): string {
  const dims = r.region.map((rg) => {
    if (rg.extent.kind === "IntImm" && rg.extent.value === 1) return show(rg.min);
    return `${show(rg.min)}:${show(simplify(add(rg.min, rg.extent)))}`;
  });
  return `${r.buffer.name}[${dims.join(", ")}]`;
}

export function showRegions(rs: readonly BufferRegion[]): string[] {
  return rs.map(showRegion);
}

export function matmulFunc(n = 128): { func: PrimFunc; update: Block; A: Buffer; C: Buffer } {
  const A = declBuffer("A", [n, n]);
  const B = declBuffer("B", [n, n]);
  const C = declBuffer("C", [n, n]);
  const [i, j, k] = [variable("i"), variable("j"), variable("k")];
  const [vi, vj, vk] = [variable("vi"), variable("vj"), variable("vk")];
  const update = block({
    name: "C",
    iterVars: [iterVar(vi, rangeFromExtent(n), "spatial"), iterVar(vj, rangeFromExtent(n), "spatial"), iterVar(vk, rangeFromExtent(n), "reduce")],
    init: bufferStore(C, floatImm(0), [vi, vj]),
    body: bufferStore(C, add(bufferLoad(C, [vi, vj]), mul(bufferLoad(A, [vi, vk]), bufferLoad(B, [vk, vj]))), [vi, vj]),
  });
  const loops = forLoop(i, n, forLoop(j, n, forLoop(k, n, blockRealize([i, j, k], true, update))));
  const root = blockRealize([], true, block({ name: "root", body: loops }));
  const params = [variable("a", "handle"), variable("b", "handle"), variable("c", "handle")];
  const func = primFunc(
    params,
    new Map([
      [params[0]!, A],
      [params[1]!, B],
      [params[2]!, C],
    ]),
    root,
  );
  return { func, update, A, C };
}

export function spatialIter(name: string, extent: number | PrimExpr, lo = 0) {
  const v = variable(name);
  return { v, iv: iterVar(v, typeof extent === "number" ? range(lo, extent) : rangeFromExtent(extent), "spatial") };
}
