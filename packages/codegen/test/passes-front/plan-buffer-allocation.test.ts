import { forEachStmt, parsePrimFunc } from "@tessera/ir";
import { describe, expect, test } from "vitest";
import { lowerInitBlock, planBufferAllocation } from "../../src/lower/passes/index.js";
import { MIXED_SCOPES } from "./fixtures.js";
import { corpusEntry, expectSameResults, script } from "./helpers.js";

describe("planBufferAllocation", () => {
  test("global stays at the root; shared and local go to the lowest common ancestor, inside threadIdx loops too", () => {
    const f = parsePrimFunc(MIXED_SCOPES);
    const out = planBufferAllocation(f);
    expect(script(out)).toBe(`@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    # with T.block("root"):
    G = T.alloc_buffer((64,))
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        with T.block(""):
            T.reads()
            T.writes()
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
                    T.reads()
                    T.writes()
                    S2 = T.alloc_buffer((64,), scope="shared")
                    with T.block("S2"):
                        vi = T.axis.spatial(64, bx * 32 + tx)
                        T.reads(S[vi])
                        T.writes(S2[vi])
                        S2[vi] = S[vi]
                    for j in range(2):
                        with T.block(""):
                            T.reads()
                            T.writes()
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
                        T.reads()
                        T.writes()
                        matmul = T.alloc_buffer((64, 64), scope="local")
                        for k in range(64):`);
    expectSameResults(f, entry.original());
  });

  test("manual corpus schedule: shared tiles in the k loop, the accumulator outside its reduction loop k_0", () => {
    const entry = corpusEntry("gemm_relu_add_manual");
    const text = script(planBufferAllocation(lowerInitBlock(entry.build().func)));
    expect(text).toMatch(
      /for k_0 in range\(8\):\n\s+with T\.block\(""\):\n\s+T\.reads\(\)\n\s+T\.writes\(\)\n\s+A_shared = T\.alloc_buffer\(\(128, 128\), scope="shared"\)\n\s+B_shared = /,
    );
    // matmul_local accumulates over k_0, which encloses the threadIdx loops: it is allocated per
    // thread block, outside k_0 (TVM's kernels declare it at the top as well).
    expect(text).toMatch(
      /thread="blockIdx\.y"\):\n\s+with T\.block\(""\):\n\s+T\.reads\(\)\n\s+T\.writes\(\)\n\s+matmul_local = T\.alloc_buffer\(\(128, 128\), scope="local"\)\n\s+for k_0 in range\(8\):/,
    );
    expect(text).toMatch(
      /for k_1_0, k_1_1 in T\.grid\(16, 1\):\n\s+with T\.block\(""\):\n\s+T\.reads\(\)\n\s+T\.writes\(\)\n\s+A_shared_local = T\.alloc_buffer\(\(128, 128\), scope="local"\)\n\s+B_shared_local = /,
    );
  });
});
