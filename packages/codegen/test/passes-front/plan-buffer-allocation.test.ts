import { forEachStmt, parsePrimFunc } from "@tessera/ir";
import { describe, expect, test } from "vitest";
import { lowerInitBlock, planBufferAllocation } from "../../src/lower/passes/index.js";
import { MIXED_SCOPES } from "./fixtures.js";
import { corpusEntry, expectSameResults, script } from "./helpers.js";

describe("planBufferAllocation", () => {
  test("global stays at the root; shared and local go to the lowest common ancestor, inside threadIdx loops too; a holder block gets the regions of its body", () => {
    const f = parsePrimFunc(MIXED_SCOPES);
    const out = planBufferAllocation(f);
    expect(script(out)).toBe(`@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    # with T.block("root"):
    G = T.alloc_buffer((64,))
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        with T.block(""):
            T.reads(A[bx * 32:bx * 32 + 32], G[bx * 32:bx * 32 + 32])
            T.writes(G[bx * 32:bx * 32 + 32], C[bx * 32:bx * 32 + 32])
            S = T.alloc_buffer((64,), scope="shared")
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                with T.block("G"):
                    vi = T.axis.spatial(64, bx * 32 + tx)
                    T.reads(A[vi])
                    T.writes(G[vi])
                    G[vi] = A[vi] * T.float32(2.0)
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                with T.block("S"):
                    vi = T.axis.spatial(64, bx * 32 + tx)
                    T.reads(G[vi])
                    T.writes(S[vi])
                    S[vi] = G[vi]
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                with T.block(""):
                    T.reads(S[bx * 32 + tx])
                    T.writes(C[bx * 32 + tx])
                    S2 = T.alloc_buffer((64,), scope="shared")
                    with T.block("S2"):
                        vi = T.axis.spatial(64, bx * 32 + tx)
                        T.reads(S[vi])
                        T.writes(S2[vi])
                        S2[vi] = S[vi]
                    for j in range(2):
                        with T.block(""):
                            T.reads(S2[bx * 32 + tx])
                            T.writes(C[bx * 32 + tx])
                            L = T.alloc_buffer((64,), scope="local")
                            with T.block("L"):
                                vi = T.axis.spatial(64, bx * 32 + tx)
                                T.reads(S2[vi])
                                T.writes(L[vi])
                                L[vi] = S2[vi] + T.float32(1.0)
                            with T.block("C"):
                                vi = T.axis.spatial(64, bx * 32 + tx)
                                T.reads(L[vi])
                                T.writes(C[vi])
                                C[vi] = L[vi]
`);
    expectSameResults(out, f);
  });

  test("a buffer used by one block only is allocated by that block", () => {
    const f = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    Tmp = T.alloc_buffer((8,), scope="local")
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            Tmp[vi] = A[vi]
            C[vi] = Tmp[vi]
`);
    const out = planBufferAllocation(f);
    const allocators: Record<string, string[]> = {};
    forEachStmt(out.body, (s) => {
      if (s.kind === "BlockRealize") allocators[s.block.name] = s.block.allocBuffers.map((b) => b.name);
    });
    expect(allocators).toEqual({ root: [], C: ["Tmp"] });
    expectSameResults(out, f);
  });

  test("naive corpus schedule: matmul (local) moves inside the threadIdx.y loop", () => {
    const entry = corpusEntry("gemm_relu_add_naive");
    const f = planBufferAllocation(lowerInitBlock(entry.build().func));
    expect(script(f)).toContain(`                for j_1 in T.thread_binding(32, thread="threadIdx.y"):
                    with T.block(""):
                        T.reads(A[i_0 * 32 + i_1, 0:64], B[0:64, j_0 * 32 + j_1], C[i_0 * 32 + i_1, j_0 * 32 + j_1])
                        T.writes(D[i_0 * 32 + i_1, j_0 * 32 + j_1])
                        matmul = T.alloc_buffer((64, 64), scope="local")
                        for k in range(64):`);
    expectSameResults(f, entry.original());
  });

  test("manual corpus schedule: shared tiles in the k loop, the accumulator outside its reduction loop k_0", () => {
    const entry = corpusEntry("gemm_relu_add_manual");
    const text = script(planBufferAllocation(lowerInitBlock(entry.build().func)));
    expect(text).toMatch(
      /for k_0 in range\(8\):\n\s+with T\.block\(""\):\n\s+T\.reads\([^\n]+\)\n\s+T\.writes\([^\n]+\)\n\s+A_shared = T\.alloc_buffer\(\(128, 128\), scope="shared"\)\n\s+B_shared = /,
    );
    // matmul_local accumulates over k_0, which encloses the threadIdx loops: it is allocated per
    // thread block, outside k_0 (TVM's kernels declare it at the top as well).
    expect(text).toMatch(
      /thread="blockIdx\.y"\):\n\s+with T\.block\(""\):\n\s+T\.reads\([^\n]+\)\n\s+T\.writes\([^\n]+\)\n\s+matmul_local = T\.alloc_buffer\(\(128, 128\), scope="local"\)\n\s+for k_0 in range\(8\):/,
    );
    expect(text).toMatch(
      /for k_1_0, k_1_1 in T\.grid\(16, 1\):\n\s+with T\.block\(""\):\n\s+T\.reads\([^\n]+\)\n\s+T\.writes\([^\n]+\)\n\s+A_shared_local = T\.alloc_buffer\(\(128, 128\), scope="local"\)\n\s+B_shared_local = /,
    );
  });
});

// With everything on the host, global intermediates are placed as in TVM (on a GPU they stay at the root).
describe("planBufferAllocation as TVM's PlanAndUpdateBufferAllocationLocation", () => {
  test("a block's regions drop a buffer it now allocates itself", () => {
    const f = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32")):
    B = T.alloc_buffer((4, 8))
    for i in range(4):
        with T.block("outer"):
            vi = T.axis.spatial(4, i)
            T.reads(A[vi, 0:8], B[vi, 0:8])
            T.writes(B[vi, 0:8], C[vi, 0:8])
            for j in range(8):
                B[vi, j] = A[vi, j] + T.float32(1)
            for j in range(8):
                C[vi, j] = B[vi, j] * T.float32(2)
`);
    const out = planBufferAllocation(f, { onHost: true });
    let outer: { reads: string[]; writes: string[]; allocs: string[] } | undefined;
    forEachStmt(out.body, (s) => {
      if (s.kind === "BlockRealize" && s.block.name === "outer") {
        const names = (rs: readonly { buffer: { name: string } }[]) => rs.map((r) => r.buffer.name);
        outer = { reads: names(s.block.reads), writes: names(s.block.writes), allocs: s.block.allocBuffers.map((b) => b.name) };
      }
    });
    expect(outer).toEqual({ reads: ["A"], writes: ["C"], allocs: ["B"] });
    expectSameResults(out, f);
  });

  test("a buffer read through an opaque iterator across its loop is allocated outside that loop", () => {
    const f = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((4, 8), "int32"), B: T.Buffer((4, 8), "int32")):
    C = T.alloc_buffer((4, 8), "int32")
    for i in range(4):
        for j in range(8):
            with T.block("produce"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + 1
            with T.block("consume"):
                vi = T.axis.spatial(4, i)
                vj = T.axis.opaque(8, j)
                B[vi, vj] = C[vi, vj] + T.if_then_else(0 < vj, C[vi, vj - 1], 0)
`);
    const out = planBufferAllocation(f, { onHost: true });
    // C holds values of earlier j iterations: it lives in a holder block under i, not under j.
    expect(script(out)).toMatch(
      /for i in range\(4\):\n\s+with T\.block\(""\):\n[^\n]+\n[^\n]+\n\s+C = T\.alloc_buffer\(\(4, 8\), "int32"\)\n\s+for j in range\(8\):/,
    );
    expectSameResults(out, f);
  });
});
