/** The C target's lowering and generated code: targets, loop kinds, and schedules it must refuse. */
import { type For, IRMutator, type Stmt, ops, withBody } from "@tessera/ir";
import { type LoopRV, Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import {
  CLoweringError,
  PARALLEL_MIN_WORK,
  STACK_LIMIT_BYTES,
  estimatedWork,
  TargetError,
  buildC,
  codegenC,
  lower,
  target,
  targetKindOf,
} from "../../src/index.js";

function matmulSchedule(n = 64): { sch: Schedule; i: LoopRV; j: LoopRV; k: LoopRV } {
  const sch = new Schedule(ops.matmul(n, n, n).func);
  const [i, j, k] = sch.getLoops(sch.getBlock("C")) as [LoopRV, LoopRV, LoopRV];
  return { sch, i, j, k };
}

/** The line index of the first line matching `re` in `source`, or -1. */
function lineOf(source: string, re: RegExp): number {
  return source.split("\n").findIndex((l) => re.test(l));
}

describe("C targets", () => {
  it("maps c and llvm names to the host, -mcpu to -march, -num-cores to OpenMP threads", () => {
    expect(target("c")).toMatchObject({ kind: "c", march: "native" });
    expect(target("llvm")).toMatchObject({ kind: "c", march: "native" });
    expect(target("llvm -mcpu=skylake-avx512 -num-cores=2")).toMatchObject({ march: "skylake-avx512", numCores: 2 });
    expect(targetKindOf("llvm -mcpu=znver3")).toBe("c");
    expect(targetKindOf("cuda")).toBe("cuda");
  });

  it("rejects unknown options and malformed values by name", () => {
    expect(() => target("llvm -opt=3")).toThrow(/unknown option -opt/);
    expect(() => target("c -num-cores=0")).toThrow(TargetError);
    expect(() => target("c -mcpu=a;rm")).toThrow(/not a CPU name/);
    expect(() => target("rocm")).toThrow(/unknown target "rocm"/);
  });

  it("puts a num_threads clause on parallel loops when the target fixes the cores", () => {
    const { sch, i } = matmulSchedule(64);
    sch.parallel(i);
    expect(buildC(sch, "c -num-cores=3").source).toContain("#pragma omp parallel for schedule(static) num_threads(3)");
  });
});

describe("C generation of loop kinds", () => {
  it("parallel → OpenMP on the outermost parallel loop only; vectorized → omp simd; the function and its packed entry are exported", () => {
    const { sch, i, j } = matmulSchedule();
    const [jo, ji] = sch.split(j, [null, 16]) as [LoopRV, LoopRV];
    sch.parallel(i);
    sch.parallel(jo);
    const k = sch.getLoops(sch.getBlock("C"))[3]!;
    sch.reorder(k, ji);
    sch.vectorize(ji);
    const m = buildC(sch);
    expect(m.loops).toMatchObject({ parallel: 1, simd: 1, serialized: 1 });
    const src = m.source;
    expect(lineOf(src, /omp parallel for/)).toBeLessThan(lineOf(src, /for \(int32_t i = 0; i < 64/));
    expect(src).toMatch(/parallel loop j_0 runs serially: it is nested in a parallel loop/);
    expect(lineOf(src, /#pragma omp simd/) + 1).toBe(lineOf(src, /for \(int32_t j_1 = 0; j_1 < 16/));
    expect(src).toContain("TESSERA_EXPORT void matmul(float* restrict A, float* restrict B, float* restrict C)");
    expect(src).toContain("TESSERA_EXPORT int32_t matmul_packed(void** args)");
    expect(m.usesOpenMP).toBe(true);
  });

  it("a parallel loop nest with too little work for a thread team runs serially, with a comment saying so", () => {
    const small = matmulSchedule(16);
    small.sch.parallel(small.i);
    const m = buildC(small.sch);
    expect(m.loops).toMatchObject({ parallel: 0, serialized: 1 });
    // Per (i, j, k): the guarded initialisation and the update.
    expect(estimatedWork(lower(small.sch, "c").func.body)).toBe(16 * 16 * 16 * 2);
    expect(m.source).toMatch(/parallel loop i runs serially: about 8192 stores, too little work/);
    expect(PARALLEL_MIN_WORK).toBeGreaterThan(8192);
  });

  it("a vectorized loop whose stores do not move with it (a reduction) is not declared SIMD", () => {
    // The schedule refuses to vectorize a reduction loop; lowered IR from elsewhere may still have one.
    const lowered = lower(matmulSchedule(8).sch, "c");
    const marked = new (class extends IRMutator {
      override visitFor(s: For): Stmt {
        const loop = super.visitFor(s);
        return loop.kind === "For" && loop.loopVar.name === "k" ? { ...loop, forKind: "vectorized" } : loop;
      }
    })().visitStmt(lowered.func.body);
    const m = codegenC({ ...lowered, func: withBody(lowered.func, marked) });
    expect(m.loops.simd).toBe(0);
    expect(m.source).toMatch(/vectorized loop k is left to the compiler: a store in its body does not move with it/);
  });

  it("unrolled loops are expanded; ones too large to expand get #pragma GCC unroll", () => {
    const small = matmulSchedule(8);
    small.sch.unroll(small.k);
    expect(buildC(small.sch).source).not.toMatch(/for \(int32_t k /);
    const big = matmulSchedule(512);
    big.sch.unroll(big.j);
    const src = buildC(big.sch).source;
    expect(lineOf(src, /#pragma GCC unroll 512/) + 1).toBe(lineOf(src, /for \(int32_t j = 0; j < 512/));
  });

  it("local buffers are stack arrays up to the stack limit, larger ones heap workspaces kept between calls", () => {
    const tile = matmulSchedule(64);
    tile.sch.cacheWrite(tile.sch.getBlock("C"), 0, "local");
    const small = buildC(tile.sch);
    expect(small.source).toContain("float C_local[4096] __attribute__((aligned(64)));");
    expect(small.releaseSymbol).toBeUndefined();
    expect(small.source).not.toContain("tessera_workspaces");
    const n = Math.ceil(Math.sqrt(STACK_LIMIT_BYTES / 4)) + 8;
    const large = matmulSchedule(n);
    large.sch.cacheWrite(large.sch.getBlock("C"), 0, "global");
    const mod = buildC(large.sch);
    expect(mod.source).toContain(`float* restrict C_global = (float*)tessera_workspace(&tessera_workspaces[0], (size_t)${n * n * 4});`);
    expect(mod.source).toContain("static _Thread_local void* tessera_workspaces[1];");
    expect(mod.source).not.toContain("free(C_global)");
    expect(mod.workspaceBytes).toEqual([n * n * 4]);
    expect(mod.releaseSymbol).toBe("matmul_release_workspaces");
    expect(mod.source).toContain("TESSERA_EXPORT int32_t matmul_release_workspaces(void** unused) {");
  });

  it("a heap buffer allocated inside a parallel loop is private to its iteration and freed at scope end", () => {
    const n = 256;
    const { sch, i } = matmulSchedule(n);
    const [io] = sch.split(i, [2, null]) as [LoopRV, LoopRV];
    const cache = sch.cacheWrite(sch.getBlock("C"), 0, "global");
    sch.reverseComputeAt(cache, io);
    sch.parallel(io);
    const mod = buildC(sch);
    const bytes = (n / 2) * n * 4;
    expect(bytes).toBeGreaterThan(STACK_LIMIT_BYTES);
    expect(mod.source).toContain(`float* restrict C_global = (float*)tessera_alloc((size_t)${bytes});`);
    expect(lineOf(mod.source, /C_global = \(float\*\)tessera_alloc/)).toBeGreaterThan(lineOf(mod.source, /#pragma omp parallel for/));
    expect(lineOf(mod.source, /free\(C_global\);/)).toBeGreaterThan(lineOf(mod.source, /C\[.*\] = C_global\[/));
    expect(mod.releaseSymbol).toBeUndefined();
  });
});

describe("allocation of intermediates on the host", () => {
  it("a global write cache computed at a tile loop is a tile-sized array inside that loop (regression: it was a whole-matrix heap buffer)", () => {
    const { sch, i, j, k } = matmulSchedule(64);
    const [io, ii] = sch.split(i, [null, 4]) as [LoopRV, LoopRV];
    const [jo, ji] = sch.split(j, [null, 16]) as [LoopRV, LoopRV];
    sch.reorder(io, jo, k, ii, ji);
    const cache = sch.cacheWrite(sch.getBlock("C"), 0, "global");
    sch.reverseComputeAt(cache, jo);
    sch.parallel(io);
    const src = buildC(sch).source;
    // 4 × 16 floats on the stack of the jo loop (private to each OpenMP thread), not tessera_alloc'd once.
    expect(src).toMatch(/float C_global\[64\]/);
    expect(src).not.toMatch(/C_global = \(float\*\)tessera_alloc/);
    expect(lineOf(src, /float C_global\[64\]/)).toBeGreaterThan(lineOf(src, /for \(int32_t j_0 = 0; j_0 < 4/));
  });
});

describe("schedules the C target cannot lower", () => {
  it("a GPU thread binding is an error naming the loop and the axis", () => {
    const { sch, i } = matmulSchedule(16);
    sch.bind(i, "blockIdx.x");
    expect(() => lower(sch, "c")).toThrow(CLoweringError);
    expect(() => lower(sch, "c")).toThrow(/loop i \(extent 16\) is bound to the GPU thread axis blockIdx\.x.*sch\.parallel/);
  });

  it("a shared-memory buffer is an error naming the buffer and its block", () => {
    const { sch } = matmulSchedule(16);
    sch.cacheRead(sch.getBlock("C"), 0, "shared");
    expect(() => buildC(sch)).toThrow(/buffer A_shared \(allocated in block root\) is in GPU storage scope "shared"/);
  });
});
