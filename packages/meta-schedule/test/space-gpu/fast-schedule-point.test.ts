/**
 * The corpus's fast gemm+ReLU+add schedule (1.10× cuBLAS on an H100) is a point of the default
 * CUDA space at 2048³: forcing the decisions that describe it — 256×128×8 tiles, 4×2 virtual
 * threads of 4×4 sub-tiles, warps of 4×8 threads, float4 fetches staged through registers, the
 * A tile transposed and padded, operand slices in registers, the register-prefetch pipeline, one
 * block per SM, an implicit unroll budget of 2048 — gives the same CUDA as `fastSchedule(2048)`
 * up to the numbers in loop-variable names and the order of two register declarations. Lowering only.
 */
import { codegenCuda, lower } from "@tessera/codegen";
import { FAST_PARAMS, fastSchedule } from "@tessera/corpus";
import { gemmReluAdd, structuralEqual } from "@tessera/ir";
import { RandomEngine, Trace } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { gemmKnobsOf, knobDifferences } from "../../bench/fast-region.js";
import { replayWithPostprocs } from "../../src/index.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";
import { tileShapeMove } from "../../src/mutator/mutate-tile-shape.js";
import { spaceOf, withForcedDecisions } from "./helpers.js";

/** Perfect tiles in trace order: i's [block, vthread] and [thread rows of a warp…], then j's. */
const FAST_TILES = [
  [8, 4],
  [4, 4],
  [16, 2],
  [2, 8],
];
/**
 * Categorical choices in trace order: i's threads and register tile, j's, the k chunk; then A's
 * fetch width, via registers, thread order (0: threads outermost), transposed; B's fetch width,
 * via registers, thread order; operand slices; pipeline; launch bounds (derived from the
 * estimated registers); unroll budget (implicit).
 */
const FAST_CHOICES = [16, 4, 16, 4, 8, 4, 1, 0, 1, 4, 1, 0, 1, 1, -1, 2048];

/** Loop-variable numbers erased (the space splits into more levels), register declarations gathered apart. */
function normalized(cuda: string): { body: string; registers: string[] } {
  const lines = cuda.replace(/\b([ijk])_\d+/g, "$1_N").split("\n");
  const isRegister = (l: string) => /^\s*__align__\(16\) float \w+_local\[\d+\];$/.test(l);
  return { body: lines.filter((l) => !isRegister(l)).join("\n"), registers: lines.filter(isRegister).sort() };
}

describe("the fast gemm schedule as a point of the default CUDA space", () => {
  const { ctx, gen, spaces } = spaceOf(gemmReluAdd(2048).func);
  const trace = withForcedDecisions(spaces[0]!.trace, FAST_TILES, FAST_CHOICES);
  const out = replayWithPostprocs(ctx, trace, gen.postprocs, { seed: 1 });

  it("passes every postprocessor", () => {
    expect(out.ok ? "ok" : out.detail).toBe("ok");
  });

  it("generates the fast schedule's CUDA", () => {
    if (!out.ok) throw new Error(out.detail);
    const mine = codegenCuda(loweredModuleFor(out.sch.func)!).source;
    const fast = codegenCuda(lower(fastSchedule(2048, FAST_PARAMS), "nvidia/h100")).source;
    const a = normalized(mine);
    const b = normalized(fast);
    expect(a.registers).toEqual(b.registers);
    expect(a.body).toBe(b.body);
  });

  it("survives the database's JSON round trip of its whole trace (postprocessing included)", () => {
    if (!out.ok) throw new Error(out.detail);
    const json = JSON.stringify(out.sch.trace.toJSON());
    const again = replayWithPostprocs(ctx, Trace.fromJSON(json), gen.postprocs, { seed: 2 });
    if (!again.ok) throw new Error(again.detail);
    expect(structuralEqual(again.sch.func, out.sch.func)).toBe(true);
  });

  it("has the fast schedule's key features", () => {
    if (!out.ok) throw new Error(out.detail);
    const module = loweredModuleFor(out.sch.func)!;
    expect(module.kernels).toHaveLength(1);
    const kernel = module.kernels[0]!;
    expect(kernel.launch.grid).toEqual([128, 1, 1]); // (2048/256) × (2048/128) tiles
    expect(kernel.launch.block).toEqual([256, 1, 1]);
    const cuda = codegenCuda(module).source;
    expect(cuda).toContain("__launch_bounds__(256, 1)");
    // A tile transposed (k rows of 256 + 4 padding floats), double-buffered: 2 × 8 × 260 (- the last row's padding).
    expect(cuda).toMatch(/__shared__ __align__\(16\) float A_shared\[4156\];/);
    expect(cuda).toMatch(/__shared__ __align__\(16\) float B_shared\[2048\];/);
    expect(cuda).toMatch(/\*\(float4\*\)\(A_local \+ /); // 128-bit global loads into registers
    expect(cuda).toContain("% 2) * 2080)"); // the second shared buffer of the pipeline
  });

  it("is in the fast region of the search-reach benchmark's classifier, and its transposed tiling is not", () => {
    if (!out.ok) throw new Error(out.detail);
    const fast = gemmKnobsOf(lower(fastSchedule(2048, FAST_PARAMS), "nvidia/h100"));
    expect(knobDifferences(gemmKnobsOf(loweredModuleFor(out.sch.func)!), fast)).toEqual([]);
    const transposedTiles = [FAST_TILES[2]!, FAST_TILES[3]!, FAST_TILES[0]!, FAST_TILES[1]!];
    const transposed = replayWithPostprocs(ctx, withForcedDecisions(spaces[0]!.trace, transposedTiles, FAST_CHOICES), gen.postprocs, { seed: 1 });
    if (!transposed.ok) throw new Error(transposed.detail);
    expect(knobDifferences(gemmKnobsOf(loweredModuleFor(transposed.sch.func)!), fast)).toContain("shared");
  });

  it("is one MutateTileShape transpose away from the 128×256 tiling (the same CUDA after the move)", () => {
    if (!out.ok) throw new Error(out.detail);
    const transposedTiles = [FAST_TILES[2]!, FAST_TILES[3]!, FAST_TILES[0]!, FAST_TILES[1]!];
    const start = withForcedDecisions(spaces[0]!.trace, transposedTiles, FAST_CHOICES);
    const moved = tileShapeMove(start, "transpose", new RandomEngine(1))!;
    const back = replayWithPostprocs(ctx, moved, gen.postprocs, { seed: 1 });
    if (!back.ok) throw new Error(back.detail);
    const cuda = (f: typeof back.sch.func) => normalized(codegenCuda(loweredModuleFor(f)!).source);
    expect(cuda(back.sch.func)).toEqual(cuda(out.sch.func));
  });
});
