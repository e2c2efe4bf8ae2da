/**
 * The built-in WMMA intrinsics tensorize the blocks of TVM's usual WMMA GEMM schedule (fragments
 * in wmma.* scopes, fill / load / mma_sync / store), and a fragment given to the wrong intrinsic
 * is refused naming the loop and the intrinsic.
 */
import { parsePrimFunc, printTVMScript, structuralEqual } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { TensorIntrinMismatchError } from "../../src/error-catalogue.js";
import { type BlockRV, type LoopRV, Schedule, TensorIntrin, WMMA_INTRINSICS as W } from "../../src/index.js";
import { expectScheduleError } from "../support.js";

const GEMM_F16_F32 = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((64, 64), "float16"), B: T.Buffer((64, 64), "float16"), C: T.Buffer((64, 64), "float32")):
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + T.Cast("float32", A[vi, vk]) * T.Cast("float32", B[vk, vj])
`);

interface WmmaStages {
  readonly sch: Schedule;
  readonly init: BlockRV;
  readonly fragA: BlockRV;
  readonly fragB: BlockRV;
  readonly compute: LoopRV;
  readonly store: BlockRV;
}

/** 16×16×16 tiles; the accumulator, the shared copies and the fragments as TVM's WMMA examples stage them. */
function staged(): WmmaStages {
  const sch = new Schedule(GEMM_F16_F32, { debugMask: "all" });
  const c = sch.getBlock("C");
  const [i, j, k] = sch.getLoops(c);
  const [i0, i1] = sch.split(i, [null, 16]);
  const [j0, j1] = sch.split(j, [null, 16]);
  const [k0, k1] = sch.split(k, [null, 16]);
  sch.reorder(i0, j0, k0, i1, j1, k1);
  const store = sch.cacheWrite(c, 0, "wmma.accumulator");
  sch.reverseComputeAt(store, j0);
  const sharedA = sch.cacheRead(c, 0, "shared");
  const fragA = sch.cacheRead(c, 0, "wmma.matrix_a");
  const sharedB = sch.cacheRead(c, 1, "shared");
  const fragB = sch.cacheRead(c, 1, "wmma.matrix_b");
  for (const b of [fragA, fragB, sharedA, sharedB]) sch.computeAt(b, k0);
  const init = sch.decomposeReduction(c, k0);
  return { sch, init, fragA, fragB, compute: i1, store };
}

/** The loop two levels above a block's innermost (the top of its 16×16 tile). */
const tileOf = (sch: Schedule, b: BlockRV) => sch.getLoops(b).at(-2);

describe("WMMA intrinsics", () => {
  it("are all built in and parse", () => {
    for (const name of Object.values(W)) expect(TensorIntrin.get(name).desc.params.length).toBeGreaterThan(0);
  });

  it("tensorize fill, both loads, mma_sync and store of a staged fp16 GEMM", () => {
    const { sch, init, fragA, fragB, compute, store } = staged();
    sch.tensorize(tileOf(sch, init), W.fillF32);
    sch.tensorize(tileOf(sch, fragA), W.loadF16A);
    sch.tensorize(tileOf(sch, fragB), W.loadF16B);
    sch.tensorize(compute, W.syncF16F16F32);
    sch.tensorize(tileOf(sch, store), W.storeF32Global);
    const text = printTVMScript(sch.func);
    for (const call of ["T.tvm_fill_fragment(", "T.tvm_load_matrix_sync(", "T.tvm_mma_sync(", "T.tvm_store_matrix_sync("]) expect(text).toContain(call);
    const mma = sch.get(sch.getBlock("C_update_o"));
    expect(mma.matchBuffers.map((m) => [m.buffer.scope, m.source.buffer.name])).toEqual([
      ["wmma.matrix_a", "A_shared_wmma.matrix_a"],
      ["wmma.matrix_b", "B_shared_wmma.matrix_b"],
      ["wmma.accumulator", "C_wmma.accumulator"],
    ]);
    expect(text).toContain('T.match_buffer(A_shared_wmma_matrix_a[vi_o * 16:vi_o * 16 + 16, vk_o * 16:vk_o * 16 + 16], (16, 16), "float16"');
    expect(structuralEqual(parsePrimFunc(text), sch.func)).toBe(true);
  });

  it("refuse a fragment of the wrong operand, naming the loop and the intrinsic", () => {
    const { sch, fragA } = staged();
    const tile = tileOf(sch, fragA);
    expectScheduleError(
      sch,
      () => sch.tensorize(tile, W.loadF16B),
      TensorIntrinMismatchError,
      `The loop "ax0" does not match the tensor intrinsic "${W.loadF16B}"`,
    );
  });

  it("refuse the transposed-B mma for an untransposed B", () => {
    const { sch, compute } = staged();
    const err = expectScheduleError(sch, () => sch.tensorize(compute, W.syncF16F16F32Trans), TensorIntrinMismatchError, `"${W.syncF16F16F32Trans}"`);
    expect(err.message).toContain("B_shared_wmma_matrix_b");
  });

  it("refuse an fp16 accumulator intrinsic on an fp32 accumulator", () => {
    const { sch, compute } = staged();
    expectScheduleError(sch, () => sch.tensorize(compute, W.syncF16F16F16), TensorIntrinMismatchError, "(float32, scope wmma.accumulator) does not match");
  });
});
