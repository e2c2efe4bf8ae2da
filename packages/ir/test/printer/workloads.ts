/** IR fixtures for the printer golden tests, built with the core constructors. */
import { declBuffer } from "../../src/buffer.js";
import { add, bufferLoad, floatImm, max, mul, variable } from "../../src/expr.js";
import { primFunc, type PrimFunc } from "../../src/func.js";
import { block, blockRealize, bufferRegion, bufferStore, forLoop, iterVar, range, rangeFromExtent, seq, type Stmt } from "../../src/stmt.js";

/** `for` nest over `vars` with the given extents around `body`. */
export function nest(vars: readonly ReturnType<typeof variable>[], extents: readonly number[], body: Stmt): Stmt {
  return vars.reduceRight<Stmt>((b, v, i) => forLoop(v, extents[i]!, b), body);
}

/** The root block wrapping a function body, as the parser produces it. */
export function rootBlock(body: Stmt, allocBuffers: Parameters<typeof block>[0]["allocBuffers"] = []): Stmt {
  return blockRealize([], true, block({ name: "root", body, allocBuffers }));
}

const point = (...idx: ReturnType<typeof variable>[]) => idx.map((v) => range(v, 1));

/** The course's gemm_relu_add workload (n × n). */
export function gemmReluAdd(n = 2048): PrimFunc {
  const [a, b, c, d] = ["A", "B", "C", "D"].map((s) => variable(s.toLowerCase(), "handle")) as [
    ReturnType<typeof variable>,
    ReturnType<typeof variable>,
    ReturnType<typeof variable>,
    ReturnType<typeof variable>,
  ];
  const A = declBuffer("A", [n, n]);
  const B = declBuffer("B", [n, n]);
  const C = declBuffer("C", [n, n]);
  const D = declBuffer("D", [n, n]);
  const matmul = declBuffer("matmul", [n, n]);
  const relu = declBuffer("relu", [n, n]);

  const [i, j, k] = ["i", "j", "k"].map((s) => variable(s)) as [ReturnType<typeof variable>, ReturnType<typeof variable>, ReturnType<typeof variable>];
  const [vi, vj, vk] = ["vi", "vj", "vk"].map((s) => variable(s)) as [ReturnType<typeof variable>, ReturnType<typeof variable>, ReturnType<typeof variable>];
  const gemm = blockRealize(
    [i, j, k],
    true,
    block({
      name: "gemm",
      iterVars: [iterVar(vi, rangeFromExtent(n), "spatial"), iterVar(vj, rangeFromExtent(n), "spatial"), iterVar(vk, rangeFromExtent(n), "reduce")],
      reads: [bufferRegion(A, point(vi, vk)), bufferRegion(B, point(vk, vj))],
      writes: [bufferRegion(matmul, point(vi, vj))],
      init: bufferStore(matmul, floatImm(0), [vi, vj]),
      body: bufferStore(matmul, add(bufferLoad(matmul, [vi, vj]), mul(bufferLoad(A, [vi, vk]), bufferLoad(B, [vk, vj]))), [vi, vj]),
    }),
  );

  const elementwise = (
    name: string,
    reads: Parameters<typeof bufferRegion>[0][],
    out: Parameters<typeof bufferRegion>[0],
    value: (vi: ReturnType<typeof variable>, vj: ReturnType<typeof variable>) => Parameters<typeof bufferStore>[1],
  ) => {
    const [li, lj] = [variable("i"), variable("j")];
    const [bi, bj] = [variable("vi"), variable("vj")];
    return nest(
      [li, lj],
      [n, n],
      blockRealize(
        [li, lj],
        true,
        block({
          name,
          iterVars: [iterVar(bi, rangeFromExtent(n), "spatial"), iterVar(bj, rangeFromExtent(n), "spatial")],
          reads: reads.map((r) => bufferRegion(r, point(bi, bj))),
          writes: [bufferRegion(out, point(bi, bj))],
          body: bufferStore(out, value(bi, bj), [bi, bj]),
        }),
      ),
    );
  };

  const body = seq([
    nest([i, j, k], [n, n, n], gemm),
    elementwise("relu", [matmul], relu, (x, y) => max(bufferLoad(matmul, [x, y]), floatImm(0))),
    elementwise("add", [relu, C], D, (x, y) => add(bufferLoad(relu, [x, y]), bufferLoad(C, [x, y]))),
  ]);
  return primFunc(
    [a, b, c, d],
    new Map([
      [a, A],
      [b, B],
      [c, C],
      [d, D],
    ]),
    rootBlock(body, [matmul, relu]),
    { global_symbol: "gemm_relu_add", "tir.noalias": true },
  );
}
