import { target } from "@tessera/codegen";
import { type PrimFunc, forEachStmt } from "@tessera/ir";
import { Schedule, type LoopRV } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RewriteLayout, affineTerms } from "../../src/postproc/rewrite-layout.js";
import { LAYOUT_REWRITE, TILING_STRUCTURE } from "../../src/schedule-utils/annotations.js";
import { tuneContext } from "../../src/tune-context.js";
import { workloadOf } from "../../src/workload.js";
import { execute, matmulFunc, matmulRelu } from "./helpers.js";

const ctxOf = (func: PrimFunc) => tuneContext(workloadOf(func), target("c"), { seed: 1 });

/** The matmul block tiled SSRSRS by hand with these factors (i, j: 4 pieces; k: 2), as MultiLevelTiling does. */
function tiled(func: PrimFunc, ti: number[], tj: number[], tk: number[]): Schedule {
  const sch = new Schedule(func);
  const c = sch.getBlock("C");
  sch.annotate(c, TILING_STRUCTURE, "SSRSRS");
  const [i, j, k] = sch.getLoops(c) as [LoopRV, LoopRV, LoopRV];
  const is = sch.split(i, ti);
  const js = sch.split(j, tj);
  const ks = sch.split(k, tk);
  sch.reorder(is[0]!, js[0]!, is[1]!, js[1]!, ks[0]!, is[2]!, js[2]!, ks[1]!, is[3]!, js[3]!);
  return sch;
}

function allocatedShapes(func: PrimFunc): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  forEachStmt(func.body, (s) => {
    if (s.kind === "BlockRealize") for (const b of s.block.allocBuffers) out[b.name] = b.shape.map((d) => (d.kind === "IntImm" ? d.value : -1));
  });
  return out;
}

describe("RewriteLayout (CPU)", () => {
  it("packs A and B of a tiled matmul into the order of the loops that walk them (unit pieces dropped)", () => {
    const sch = tiled(matmulFunc(16, 32, 8), [2, 2, 1, 4], [2, 1, 2, 8], [2, 4]);
    expect(new RewriteLayout().apply(sch, ctxOf(sch.func))).toEqual({ ok: true });
    // B[k, j]: loops j_0 (2), k_0 (2), j_2 (2), k_1 (4), j_3 (8); A[i, k]: i_0, i_1, k_0, k_1, i_3.
    expect(allocatedShapes(sch.func)).toMatchObject({ B_global: [2, 2, 2, 4, 8], A_global: [2, 2, 2, 4, 4] });
    expect(Array.from(execute(sch.func, 3).at(-1)!)).toEqual(Array.from(execute(matmulFunc(16, 32, 8), 3).at(-1)!));
  });

  it("packs only the parameters a layout_rewrite_params mask names (bit p: the p-th parameter), and computes the same", () => {
    const shapesWith = (mask: number) => {
      const sch = tiled(matmulFunc(16, 32, 8), [2, 2, 1, 4], [2, 1, 2, 8], [2, 4]);
      sch.annotate(sch.getBlock("C"), LAYOUT_REWRITE, mask);
      expect(new RewriteLayout().apply(sch, ctxOf(sch.func))).toEqual({ ok: true });
      expect(Array.from(execute(sch.func, 4).at(-1)!)).toEqual(Array.from(execute(matmulFunc(16, 32, 8), 4).at(-1)!));
      return Object.keys(allocatedShapes(sch.func)).sort();
    };
    // The parameters are A, B, C: bit 0 is A, bit 1 is B.
    expect(shapesWith(0)).toEqual([]);
    expect(shapesWith(1)).toEqual(["A_global"]);
    expect(shapesWith(2)).toEqual(["B_global"]);
    expect(shapesWith(3)).toEqual(["A_global", "B_global"]);
  });

  it("leaves an operand already in loop order alone, and untiled blocks", () => {
    // No split of k, i or j beyond the outer pieces in order: A[i, k] and B[k, j] walked row-major.
    const sch = tiled(matmulFunc(8, 8, 8), [8, 1, 1, 1], [1, 1, 1, 8], [8, 1]);
    expect(new RewriteLayout().apply(sch, ctxOf(sch.func))).toEqual({ ok: true });
    expect(allocatedShapes(sch.func)).toEqual({});
    const plain = new Schedule(matmulFunc(8, 8, 8));
    new RewriteLayout().apply(plain, ctxOf(plain.func));
    expect(allocatedShapes(plain.func)).toEqual({});
  });

  it("property: any perfect tiling of a matmul (+ ReLU) computes the same after the rewrite", () => {
    const factorizations = (n: number): number[][] => {
      const out: number[][] = [];
      const divisors = (x: number) => Array.from({ length: x }, (_, d) => d + 1).filter((d) => x % d === 0);
      for (const a of divisors(n)) for (const b of divisors(n / a)) for (const c of divisors(n / a / b)) out.push([a, b, c, n / a / b / c]);
      return out;
    };
    const fi = factorizations(12);
    const fj = factorizations(8);
    fc.assert(
      fc.property(fc.nat(fi.length - 1), fc.nat(fj.length - 1), fc.constantFrom([1, 6], [2, 3], [6, 1]), fc.boolean(), fc.nat(1000), (a, b, tk, relu, seed) => {
        const func = relu ? matmulRelu(12, 8, 6) : matmulFunc(12, 8, 6);
        const sch = tiled(func, fi[a]!, fj[b]!, [...tk]);
        const result = new RewriteLayout().apply(sch, ctxOf(func));
        expect(result).toEqual({ ok: true });
        const got = execute(sch.func, seed).at(-1)!;
        const want = execute(func, seed).at(-1)!;
        got.forEach((x, i) => expect(Math.abs(Number(x) - Number(want[i]))).toBeLessThanOrEqual(1e-4));
      }),
      { numRuns: 25 },
    );
  });

  it("affineTerms reads coefficients of a split nest's binding, and refuses what is not affine", () => {
    const sch = tiled(matmulFunc(16, 16, 16), [2, 2, 2, 2], [1, 1, 4, 4], [4, 4]);
    let binding: string | undefined;
    forEachStmt(sch.func.body, (s) => {
      if (s.kind === "BlockRealize" && s.block.name === "C") {
        const terms = affineTerms(s.iterValues[0]!);
        binding = terms === undefined ? undefined : [...terms.values()].sort((x, y) => x - y).join(",");
        expect(affineTerms({ kind: "Binary", op: "floordiv", a: s.iterValues[0]!, b: s.iterValues[1]! } as never)).toBeUndefined();
      }
    });
    expect(binding).toBe("1,2,4,8");
  });
});

describe("RewriteParallelVectorizeUnroll on a CPU tiling with a write cache at level 1", () => {
  it("fuses only the perfect nest above the cache (regression: it fused past the cache's loop and the sample was rejected)", async () => {
    const { RewriteParallelVectorizeUnroll } = await import("../../src/postproc/rewrite-parallel-vectorize-unroll.js");
    const func = matmulFunc(16, 16, 8);
    const sch = tiled(func, [2, 4, 1, 2], [2, 2, 2, 2], [2, 4]);
    const [i0, j0] = sch.getLoops(sch.getBlock("C")) as [LoopRV, LoopRV];
    void i0;
    const cache = sch.cacheWrite(sch.getBlock("C"), 0, "global");
    sch.reverseComputeAt(cache, j0, true);
    sch.annotate(sch.getBlock("root"), "meta_schedule.parallel", 1024);
    expect(new RewriteParallelVectorizeUnroll({ payoff: () => true }).apply(sch, ctxOf(func))).toEqual({ ok: true });
    const parallel: string[] = [];
    forEachStmt(sch.func.body, (s) => {
      if (s.kind === "For" && s.forKind === "parallel") parallel.push(`${s.loopVar.name}:${s.extent.kind === "IntImm" ? s.extent.value : "?"}`);
    });
    expect(parallel).toEqual(["i_0_j_0_fused:4"]);
    expect(Array.from(execute(sch.func, 1).at(-1)!)).toEqual(Array.from(execute(func, 1).at(-1)!));
  });
});
