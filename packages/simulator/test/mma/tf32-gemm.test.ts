/**
 * The tf32 GEMM (fp32 operands rounded to tf32 on the load path, mma.sync m16n8k8) runs in the
 * simulator lane by lane and agrees bit for bit with the executor on the unscheduled function,
 * also software-pipelined. A kernel whose fragment loads forget the rounding is refused at the MMA:
 * the tf32 MMA reads tf32 values only.
 */
import { type LoweredModule, lower } from "@tessera/codegen";
import { SMALL_TF32_PARAMS, tf32Gemm, tf32GemmSchedule } from "@tessera/corpus";
import { IRMutator, type PrimExpr, randomArgs } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { FragmentMisuseError, simulate } from "../../src/index.js";
import { differingGemmBits } from "../tensor-core-bits.js";

/** Drops every `T.tf32_round`: the fragments then hold raw float32 values. */
class DropRounding extends IRMutator {
  override visitExpr(e: PrimExpr): PrimExpr {
    const v = super.visitExpr(e);
    return v.kind === "Call" && v.op === "tf32_round" ? v.args[0]! : v;
  }
}

describe("the tf32 mma.sync GEMM in the simulator", () => {
  it("128³: C has the executor's bits", () => {
    const r = differingGemmBits(tf32Gemm(128), lower(tf32GemmSchedule(128), "nvidia/a100"), 5);
    expect(r.differing).toBe(0);
    expect(r.races).toBe(0);
    // Not vacuous: the sums differ from element to element.
    expect(r.distinct).toBeGreaterThan(16000);
  });

  it("64³ with a double-buffered cp.async pipeline: the executor's bits, no race", () => {
    const module = lower(tf32GemmSchedule(64, { ...SMALL_TF32_PARAMS, pipelineStages: 2 }), "nvidia/a100");
    const r = differingGemmBits(tf32Gemm(64), module, 7);
    expect(r.differing).toBe(0);
    expect(r.races).toBe(0);
  });

  it("128³ with a 3-stage cp.async pipeline (tiles in dynamic shared memory): the executor's bits, no race", () => {
    const module = lower(tf32GemmSchedule(128, { ...SMALL_TF32_PARAMS, pipelineStages: 3 }), "nvidia/a100");
    expect(module.kernels[0]!.launch.dynamicSharedBytes).toBeGreaterThan(0);
    const r = differingGemmBits(tf32Gemm(128), module, 9);
    expect(r.differing).toBe(0);
    expect(r.races).toBe(0);
  });

  for (const pipelineStages of [1, 3])
    it(`128³ with A's fragments through ldmatrix (32-bit elements as b16 pairs), ${pipelineStages} stage(s): the executor's bits, no race`, () => {
      const module = lower(tf32GemmSchedule(128, { ...SMALL_TF32_PARAMS, pipelineStages, ldmatrixA: true }), "nvidia/a100");
      const r = differingGemmBits(tf32Gemm(128), module, 9);
      expect(r.differing).toBe(0);
      expect(r.races).toBe(0);
      expect(r.distinct).toBeGreaterThan(16000);
    });

  it("A's ldmatrix reads padded 32-bit rows without bank conflicts, one instruction per 16×8 fragment", () => {
    const module = lower(tf32GemmSchedule(32, { ...SMALL_TF32_PARAMS, ldmatrixA: true }), "nvidia/a100");
    const report = simulate(module, randomArgs(tf32Gemm(32), 1), { bankConflicts: true });
    const rows = report.bankConflicts!.sites.filter((x) => x.text.startsWith("T.ptx_legacy.ldmatrix"));
    expect(rows.map((r) => r.buffer)).toEqual(["A_shared"]);
    // One block of 4 warps × 4 k tiles (two per stage, two stages): 16 ldmatrix.x4 of 4 matrices each.
    expect(rows[0]!.instructions).toBe(16);
    expect(rows[0]!.idealWavefronts).toBe(64);
    expect(rows[0]!.conflicts).toBe(0);
    // Not vacuous: unpadded 64-byte rows put two rows of a matrix in each 128-byte line.
    const unpadded = lower(tf32GemmSchedule(32, { ...SMALL_TF32_PARAMS, padShared: false, ldmatrixA: true }), "nvidia/a100");
    const conflicting = simulate(unpadded, randomArgs(tf32Gemm(32), 1), { bankConflicts: true }).bankConflicts!.sites.find((x) =>
      x.text.startsWith("T.ptx_legacy.ldmatrix"),
    );
    expect(conflicting!.worstWay).toBeGreaterThan(1);
  });

  it("refuses an MMA on fragments that do not hold tf32 values, naming the call and the lane", () => {
    const module = lower(tf32GemmSchedule(64), "nvidia/a100");
    const broken: LoweredModule = { ...module, kernels: module.kernels.map((k) => ({ ...k, body: new DropRounding().visitStmt(k.body) })) };
    const args = randomArgs(tf32Gemm(64), 1);
    expect(() => simulate(broken, args)).toThrow(FragmentMisuseError);
    expect(() => simulate(broken, args)).toThrow(/T\.ptx_legacy\.mma\("m16n8k8".*lane 0's A register holds .*, not a tf32 value/);
  });
});
