/**
 * The tf32 wgmma schedule's operand layouts: tf32 wgmma reads both operands K-major, so a GEMM
 * block that reads a row-major B (B[k, j]) does not tensorize, with an error that names the
 * intrinsic, the loop and the fix (rewrite B's layout; the schedule's pre-pass does, and the
 * simulator tests run the result). Bad tilings and tile shapes are refused by name.
 */
import { Schedule, wgmmaKMajorLayout, wgmmaTf32IntrinName, wgmmaTf32RegisterAIntrinName } from "@tessera/schedule";
import { TensorIntrinMismatchError } from "@tessera/schedule/errors";
import { describe, expect, it } from "vitest";
import {
  SMALL_WGMMA_TF32_PARAMS,
  WGMMA_TF32_K,
  WGMMA_TF32_STAGE_K,
  accumulateInWarp,
  fetchKMajorTf32,
  loadAInRegisters,
  tf32Gemm,
  tf32OperandPrePasses,
  tileForWgmma,
  wgmmaAccumulatorTiling,
  wgmmaTf32GemmSchedule,
} from "../src/index.js";

const N = 128;

/** The tf32 wgmma schedule's steps up to the tensorize, with B's pre-pass keeping B row-major (MN-major). */
function rowMajorB(): { sch: Schedule; loop: ReturnType<Schedule["getLoops"]>[number] } {
  const sch = new Schedule(tf32Gemm(N));
  tf32OperandPrePasses(sch, { a: ["A_tf32", "B_tf32"], b: [] });
  const c = sch.getBlock("C");
  const t = tileForWgmma(sch, c, SMALL_WGMMA_TF32_PARAMS, WGMMA_TF32_K, WGMMA_TF32_STAGE_K);
  for (const read of [0, 1]) sch.computeAt(sch.cacheRead(t.tile, read, "shared.dyn"), t.k0);
  accumulateInWarp(sch, t, wgmmaAccumulatorTiling(t, SMALL_WGMMA_TF32_PARAMS, WGMMA_TF32_STAGE_K / WGMMA_TF32_K));
  return { sch, loop: sch.getLoops(c).at(-3)! };
}

describe("the tf32 wgmma schedule's operand layouts", () => {
  it("refuses to tensorize a GEMM that reads B row-major, naming the intrinsic and the layout rewrite", () => {
    const { sch, loop } = rowMajorB();
    let error: unknown;
    try {
      sch.tensorize(loop, wgmmaTf32IntrinName(64));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TensorIntrinMismatchError);
    const message = (error as Error).message;
    expect(message).toMatch(/does not match the tensor intrinsic "wgmma_m64n64k8_tf32tf32f32"/);
    expect(message).toMatch(/Hint: tf32 wgmma reads both operands K-major .* B as B\[j, k\]; .*transformLayout/);
  });

  it("refuses to tensorize a register-A wgmma whose A registers are not in the wgmma A fragment layout, naming the layout", () => {
    const sch = new Schedule(tf32Gemm(N));
    tf32OperandPrePasses(sch, { a: [], b: ["B_tf32"] });
    const c = sch.getBlock("C");
    const t = tileForWgmma(sch, c, SMALL_WGMMA_TF32_PARAMS, WGMMA_TF32_K, WGMMA_TF32_STAGE_K);
    loadAInRegisters(sch, t, 64, ["A_tf32"]);
    fetchKMajorTf32(sch, t, SMALL_WGMMA_TF32_PARAMS, [{ read: "B_tf32", rows: 64 }]);
    accumulateInWarp(sch, t, wgmmaAccumulatorTiling(t, SMALL_WGMMA_TF32_PARAMS, WGMMA_TF32_STAGE_K / WGMMA_TF32_K));
    // A's warp buffer left as A_tf32[i, k] (no transformLayout to the fragment): not the intrinsic's A[lane, register].
    let error: unknown;
    try {
      sch.tensorize(sch.getLoops(c).at(-3)!, wgmmaTf32RegisterAIntrinName(64));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TensorIntrinMismatchError);
    const message = (error as Error).message;
    expect(message).toMatch(/does not match the tensor intrinsic "wgmma_m64n64k8_tf32tf32f32_rs"/);
    expect(message).toMatch(/Hint: register-A tf32 wgmma reads A from warp registers in the m16n8k8 tf32 A fragment layout .*transform its layout/);
  });

  it("refuses tilings that do not tile n and K-major tiles whose rows are not one 128-byte swizzle row", () => {
    expect(() => wgmmaTf32GemmSchedule(96)).toThrow(/wgmmaTf32GemmSchedule: n = 96 is not a multiple of the block tile 64×64×32/);
    expect(() => wgmmaTf32GemmSchedule(N, { warpgroups: 1, n: 64, pipelineStages: 2 })).toThrow(/2 pipeline stages fetch nothing ahead/);
    expect(() => wgmmaKMajorLayout(64, 64, 4)).toThrow(/K-major tile of 4-byte elements needs rows of 32 \(128 bytes\), got 64×64/);
  });
});
