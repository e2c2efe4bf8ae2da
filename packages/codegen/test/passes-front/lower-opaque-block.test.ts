import {
  type AttrStmt,
  type DeclBuffer,
  type PrimFunc,
  type Var,
  forEachStmt,
  gemmReluAdd,
  parsePrimFunc,
  printExpr,
  printTVMScript,
  structuralEqual,
} from "@tessera/ir";
import { type LoopRV, Schedule } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { lowerOpaqueBlock } from "../../src/lower/passes/index.js";
import { LoweringError } from "../../src/lower/errors.js";
import { isAllocationAnnotation } from "../../src/lower/util/flat-allocation.js";
import { corpusEntry, expectSameResults, runFrontThrough, script } from "./helpers.js";

const OPAQUE = `
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for v in T.thread_binding(2, thread="vthread.x"):
            for tx in T.thread_binding(16, thread="threadIdx.x"):
                for u in range(1):
                    with T.block(""):
                        T.where(bx * 32 + v * 16 + tx < 60)
                        L = T.alloc_buffer((1,), scope="local")
                        L[0] = A[bx * 32 + v * 16 + tx + u]
                        for w in T.vectorized(4):
                            C[bx * 32 + v * 16 + tx] = L[0]
        for tx in T.thread_binding(16, thread="threadIdx.x"):
            C[bx * 32 + tx] = C[bx * 32 + tx] + T.float32(1)
`;

describe("lowerOpaqueBlock", () => {
  test("predicates become ifs, allocations Allocate + DeclBuffer with TVM's annotations, thread loops launch attributes", () => {
    const f = parsePrimFunc(OPAQUE);
    const out = lowerOpaqueBlock(f);
    expect(script(out)).toBe(`@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    blockIdx_x = T.launch_thread("blockIdx.x", 2)
    with T.launch_thread("vthread.x", 2) as vthread_x:
        threadIdx_x = T.launch_thread("threadIdx.x", 16)
        if blockIdx_x * 32 + vthread_x * 16 + threadIdx_x < 60:
            L = T.decl_buffer((1,), scope="local")
            T.attr(L.data, "buffer_allocated_addr", T.tvm_tuple())
            T.attr(L.data, "buffer_data_alignment", 64)
            L[0] = A[blockIdx_x * 32 + vthread_x * 16 + threadIdx_x + 0]
            for w in T.vectorized(4):
                C[blockIdx_x * 32 + vthread_x * 16 + threadIdx_x] = L[0]
    threadIdx_x = T.launch_thread("threadIdx.x", 16)
    C[blockIdx_x * 32 + threadIdx_x] = C[blockIdx_x * 32 + threadIdx_x] + T.float32(1.0)
`);
    expectSameResults(out, f);
  });

  test("one variable per tag, named by the tag, shared by every loop bound to it", () => {
    const out = lowerOpaqueBlock(parsePrimFunc(OPAQUE));
    const byTag = new Map<string, Set<Var>>();
    forEachStmt(out.body, (s) => {
      if (s.kind !== "AttrStmt" || isAllocationAnnotation(s)) return;
      const a = s as AttrStmt;
      expect(a.node!.name).toBeDefined();
      const vars = byTag.get(a.node!.name) ?? new Set<Var>();
      vars.add(a.node!);
      byTag.set(a.node!.name, vars);
      expect(a.key).toBe(a.node!.name.startsWith("vthread") ? "virtual_thread" : "thread_extent");
    });
    expect([...byTag.keys()].sort()).toEqual(["blockIdx.x", "threadIdx.x", "vthread.x"]);
    for (const vars of byTag.values()) expect(vars.size).toBe(1);
  });

  test("loops bound to one tag with different extents are rejected", () => {
    const f = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            A[bx * 32 + tx] = T.float32(0)
        for ty in T.thread_binding(16, thread="threadIdx.x"):
            A[bx * 32 + ty] = T.float32(1)
`);
    expect(() => lowerOpaqueBlock(f)).toThrow(LoweringError);
    expect(() => lowerOpaqueBlock(f)).toThrow("lowerOpaqueBlock: all loops bound to threadIdx.x must have the same extent: tx (32), ty (16)");
  });

  // Found by the simulator's random GPU schedules: two stages scheduled as separate kernels with
  // different grids (gemm 2×2 blocks, then an elementwise stage over 16 blocks) were rejected.
  test("separate kernels (sibling launch nests) may bind one tag with different extents", () => {
    const f = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            A[bx * 32 + tx] = T.float32(0)
    for bx in T.thread_binding(16, thread="blockIdx.x"):
        for tx in T.thread_binding(4, thread="threadIdx.x"):
            B[bx * 4 + tx] = A[bx * 4 + tx]
`);
    const extents: number[] = [];
    forEachStmt(lowerOpaqueBlock(f).body, (st) => {
      if (st.kind === "AttrStmt" && st.key === "thread_extent" && st.value.kind === "IntImm") extents.push(st.value.value);
    });
    expect(extents).toEqual([2, 32, 16, 4]);
  });

  test("a loop bound to a tag inside another loop bound to it shares the tag's variable (TVM UnifyThreadBinding)", () => {
    const f = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for tx in T.thread_binding(8, thread="threadIdx.x"):
        for ty in T.thread_binding(8, thread="threadIdx.x"):
            A[tx * 8 + ty] = T.float32(0)
`);
    const out = lowerOpaqueBlock(f);
    const attrs: string[] = [];
    let index = "";
    forEachStmt(out.body, (st) => {
      if (st.kind === "AttrStmt" && st.key === "thread_extent") attrs.push(st.node?.name ?? "?");
      if (st.kind === "BufferStore") index = printExpr(st.indices[0]!);
    });
    expect(attrs).toEqual(["threadIdx.x", "threadIdx.x"]);
    expect(index).toBe("threadIdx_x * 8 + threadIdx_x");
  });

  test("nested loops of one tag with different extents are rejected, naming both loops", () => {
    const f = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for tx in T.thread_binding(8, thread="threadIdx.x"):
        for ty in T.thread_binding(4, thread="threadIdx.x"):
            A[tx * 8 + ty] = T.float32(0)
`);
    expect(() => lowerOpaqueBlock(f)).toThrow(/all loops bound to threadIdx\.x must have the same extent: tx \(8\), ty \(4\)/);
  });

  test("needs opaque blocks", () => {
    expect(() => lowerOpaqueBlock(corpusEntry("vector_add").build().func)).toThrow(/run convertBlocksToOpaque first/);
  });

  test("vector_add: the block predicate guards the partial last block", () => {
    const entry = corpusEntry("vector_add");
    const out = runFrontThrough(entry.build().func, "lowerOpaqueBlock");
    expect(script(out)).toBe(`@T.prim_func
def vector_add(A: T.Buffer((1000,), "float32"), B: T.Buffer((1000,), "float32"), C: T.Buffer((1000,), "float32")):
    T.func_attr({"global_symbol": "vector_add", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", 8)
    threadIdx_x = T.launch_thread("threadIdx.x", 128)
    if blockIdx_x * 128 + threadIdx_x < 1000:
        C[blockIdx_x * 128 + threadIdx_x] = A[blockIdx_x * 128 + threadIdx_x] + B[blockIdx_x * 128 + threadIdx_x]
`);
    expectSameResults(out, entry.original());
  });

  describe("annotations (TVM: pragma_* become attribute statements, other loop annotations stay)", () => {
    const ANNOTATED = `
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    for bx in T.thread_binding(4, thread="blockIdx.x", annotations={"pragma_unroll_explicit": 0, "launch_bounds_min_blocks_per_sm": 2, "pragma_auto_unroll_max_step": 16}):
        for tx in T.thread_binding(4, thread="threadIdx.x"):
            for u in T.serial(1, annotations={"pragma_note": "x"}):
                for i in T.serial(4, annotations={"software_pipeline_stage": [0, 1], "pragma_auto_unroll_max_step": 4}):
                    with T.block(""):
                        T.block_attr({"pragma_import_c": "c", "meta_schedule.cooperative_fetch": 4})
                        C[bx * 16 + tx * 4 + i + u] = A[bx * 16 + tx * 4 + i]
`;

    test("sorted by key around the loop or block; a unit loop with annotations stays; block annotations otherwise dropped", () => {
      const f = parsePrimFunc(ANNOTATED);
      const out = lowerOpaqueBlock(f);
      expect(script(out)).toBe(`@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    T.attr(None, "pragma_auto_unroll_max_step", 16)
    T.attr(None, "pragma_unroll_explicit", 0)
    T.attr(None, "tirx.launch_bounds_min_blocks_per_sm", 2)
    blockIdx_x = T.launch_thread("blockIdx.x", 4)
    threadIdx_x = T.launch_thread("threadIdx.x", 4)
    T.attr(None, "pragma_note", "x")
    for u in range(1):
        T.attr(None, "pragma_auto_unroll_max_step", 4)
        for i in T.serial(4, annotations={"software_pipeline_stage": [0, 1]}):
            T.attr(None, "pragma_import_c", "c")
            C[blockIdx_x * 16 + threadIdx_x * 4 + i + u] = A[blockIdx_x * 16 + threadIdx_x * 4 + i]
`);
      expect(structuralEqual(parsePrimFunc(printTVMScript(out)), out)).toBe(true);
      expectSameResults(out, f);
    });

    test("a known key with a value of the wrong type is rejected, naming the loop or block", () => {
      const bad = (annotations: string, where: "loop" | "block" = "loop") =>
        parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in T.thread_binding(4, thread="threadIdx.x"${where === "loop" ? `, annotations=${annotations}` : ""}):
        with T.block("S"):
            ${where === "block" ? `T.block_attr(${annotations})` : ""}
            A[i] = T.float32(0)
`);
      expect(() => lowerOpaqueBlock(bad(`{"pragma_auto_unroll_max_step": -8}`))).toThrow(
        'lowerOpaqueBlock: The annotation "pragma_auto_unroll_max_step" of loop i expects a non-negative integer, got the number -8',
      );
      expect(() => lowerOpaqueBlock(bad(`{"launch_bounds_min_blocks_per_sm": 0}`, "block"))).toThrow(
        'lowerOpaqueBlock: The annotation "launch_bounds_min_blocks_per_sm" of block S expects a positive integer, got the number 0',
      );
      expect(() => lowerOpaqueBlock(bad(`{"pragma_unroll_explicit": "yes"}`, "block"))).toThrow(/of block S expects 0, 1 or a boolean, got the string "yes"/);
    });

    test("a pragma whose value cannot be an attribute value (a list) is rejected", () => {
      const f = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in T.serial(4, annotations={"pragma_custom": [1, 2]}):
        with T.block("S"):
            A[i] = T.float32(0)
`);
      expect(() => lowerOpaqueBlock(f)).toThrow(
        'lowerOpaqueBlock: The annotation "pragma_custom" of loop i becomes an attribute statement, whose value is a number, boolean, string or expression; got the array [1, 2]',
      );
    });
  });
});

/** A small gemm tiled over threads, its accumulator cached in local storage, A staged in shared memory. */
function cachedGemm(n: number, tile: number, stageA: boolean): PrimFunc {
  const sch = new Schedule(gemmReluAdd(n).func);
  const gemm = sch.getBlock("gemm");
  const [i, j] = sch.getLoops(gemm) as [LoopRV, LoopRV, LoopRV];
  const [i0, i1] = sch.split(i, [null, tile]) as [LoopRV, LoopRV];
  const [j0, j1] = sch.split(j, [null, tile]) as [LoopRV, LoopRV];
  sch.reorder(i0, j0, i1, j1);
  sch.bind(i0, "blockIdx.x");
  sch.bind(j0, "blockIdx.y");
  sch.bind(i1, "threadIdx.x");
  sch.bind(j1, "threadIdx.y");
  const acc = sch.cacheWrite(gemm, 0, "local");
  sch.reverseComputeAt(acc, j1);
  if (stageA) sch.computeAt(sch.cacheRead(gemm, 0, "shared"), j0);
  sch.reverseComputeAt(sch.getBlock("relu"), j1);
  return sch.func;
}

test("every block allocation becomes Allocate, its DeclBuffer and the two annotations, and results stay (random schedules)", () => {
  const n = 8;
  const reference = gemmReluAdd(n).func;
  fc.assert(
    fc.property(fc.constantFrom(1, 2, 4), fc.boolean(), (tile, stageA) => {
      const before = runFrontThrough(cachedGemm(n, tile, stageA), "injectSoftwarePipeline");
      const after = lowerOpaqueBlock(before);
      let allocations = 0;
      forEachStmt(after.body, (s) => {
        if (s.kind !== "Allocate") return;
        allocations++;
        const decl = s.body;
        expect(decl.kind === "DeclBuffer" && decl.buffer === s.buffer).toBe(true);
        const addr = (decl as DeclBuffer).body as AttrStmt;
        expect([addr.key, addr.node, (addr.body as AttrStmt).key, printExpr((addr.body as AttrStmt).value)]).toEqual([
          "buffer_allocated_addr",
          s.buffer.data,
          "buffer_data_alignment",
          "64",
        ]);
      });
      let blockAllocations = 0;
      forEachStmt(before.body, (s) => void (s.kind === "BlockRealize" && (blockAllocations += s.block.allocBuffers.length)));
      expect(allocations).toBe(blockAllocations);
      expect(allocations).toBeGreaterThanOrEqual(stageA ? 2 : 1);
      expectSameResults(before, reference, tile);
      expectSameResults(after, reference, tile);
    }),
    { numRuns: 12, seed: 11 },
  );
});
