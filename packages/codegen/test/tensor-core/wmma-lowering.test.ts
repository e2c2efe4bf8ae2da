/**
 * A GEMM tensorized with the WMMA intrinsics lowers through the default CUDA pipeline:
 * lowerMatchBuffer replaces the intrinsics' match_buffer views by their sources, the fragments
 * become per-warp allocations in their wmma.* scopes, and threadSync puts barriers around the
 * fragment loads that read shared memory through pointers.
 */
import { wmmaGemm, wmmaGemmSchedule } from "@tessera/corpus";
import { type Allocate, type Call, type Stmt, forEachExpr, forEachStmt } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { lower } from "../../src/index.js";
import { lowerMatchBuffer } from "../../src/lower/passes/index.js";

const module = lower(wmmaGemmSchedule(128), "nvidia/a100");
const kernel = module.kernels[0]!;

function allocations(root: Stmt): Map<string, Allocate> {
  const found = new Map<string, Allocate>();
  forEachStmt(root, (s) => {
    if (s.kind === "Allocate") found.set(s.buffer.name, s);
  });
  return found;
}

/** The intrinsic calls and barriers of the kernel, in order. */
function calls(root: Stmt): string[] {
  const ops: string[] = [];
  forEachStmt(root, (s) => {
    if (s.kind === "Evaluate" && s.value.kind === "Call") ops.push(s.value.op);
  });
  return ops;
}

describe("lowering a WMMA-tensorized GEMM", () => {
  it("is one kernel of 16 blocks of 4 warps", () => {
    expect(module.kernels).toHaveLength(1);
    expect(kernel.launch.grid).toEqual([16, 1, 1]);
    expect(kernel.launch.block).toEqual([32, 4, 1]);
  });

  it("allocates one 16×16 fragment per warp in each wmma scope", () => {
    const allocs = allocations(kernel.body);
    const fragments = [...allocs.values()].filter((a) => a.buffer.scope.startsWith("wmma."));
    expect(fragments.map((a) => [a.buffer.scope, a.buffer.dtype, a.buffer.shape.map((e) => (e.kind === "IntImm" ? e.value : -1))])).toEqual([
      ["wmma.accumulator", "float32", [256]],
      ["wmma.matrix_a", "float16", [256]],
      ["wmma.matrix_b", "float16", [256]],
    ]);
  });

  it("leaves no match_buffer view and no variable of one", () => {
    const names = new Set<string>();
    forEachExpr(kernel.body, (e) => {
      if (e.kind === "Var") names.add(e.name);
    });
    for (const field of ["C_s1", "C_off", "A_s1", "A_off", "B_off"]) expect(names.has(field)).toBe(false);
  });

  it("fills, then per k step syncs, loads both fragments and multiplies, then stores", () => {
    expect(calls(kernel.body)).toEqual([
      "tvm_fill_fragment",
      "tvm_storage_sync",
      "tvm_storage_sync",
      "tvm_load_matrix_sync",
      "tvm_load_matrix_sync",
      "tvm_mma_sync",
      "tvm_store_matrix_sync",
    ]);
  });

  it("points each fragment load at its warp's rows or columns of the shared tile", () => {
    const pointers: Call[] = [];
    forEachExpr(kernel.body, (e) => {
      if (e.kind === "Call" && e.op === "tvm_access_ptr") pointers.push(e);
    });
    const shared = pointers.filter((p) => p.args[1]?.kind === "Var" && p.args[1].name.endsWith("_shared"));
    expect(shared).toHaveLength(2);
  });

  it("leaves a function without match_buffer untouched", () => {
    const func = wmmaGemm(32);
    expect(lowerMatchBuffer(func)).toBe(func);
  });
});
