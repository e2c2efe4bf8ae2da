/**
 * XOR-swizzled shared tiles (`swizzle: true`, `Schedule.swizzleLayout`) in the simulator: the
 * cp.async writes and the ldmatrix / scalar reads go through the same permutation, so the mma,
 * tf32 and 3xTF32 GEMMs keep the executor's bits at 128³; a kernel whose ldmatrix reads forget the
 * swizzle does not. The bank-conflict report of one block of the fp16 kernel (MMA_PARAMS) shows
 * what each layout costs: plain 64- and 256-byte rows conflict 4- and 8-way in ldmatrix, padded rows
 * (80 and 272 bytes) none in ldmatrix but 2-way in the 16-byte cp.async stores whose chunks
 * straddle two 128-byte lines, swizzled rows none in either.
 */
import { type LoweredModule, lower } from "@tessera/codegen";
import {
  MMA_PARAMS,
  type MmaGemmParams,
  SMALL_MMA_PARAMS,
  SMALL_TF32X3_PARAMS,
  SMALL_TF32_PARAMS,
  mmaGemm,
  mmaGemmSchedule,
  tf32Gemm,
  tf32GemmSchedule,
  tf32x3Gemm,
  tf32x3GemmSchedule,
} from "@tessera/corpus";
import { IRMutator, type PrimExpr, randomArgs } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { type BankConflictSite, simulate } from "../../src/index.js";
import { differingGemmBits } from "../tensor-core-bits.js";
import { differingBits } from "./mma-gemm-bits.js";

const SWIZZLED = { padShared: false, swizzle: true } as const;

/** Reads through ldmatrix as if the tiles were plain: every XOR in an ldmatrix row address dropped. */
class UnswizzledLdmatrix extends IRMutator {
  private inLdmatrix = false;

  override visitExpr(e: PrimExpr): PrimExpr {
    if (e.kind === "Call" && e.op === "ptx_legacy.ldmatrix") {
      this.inLdmatrix = true;
      const v = super.visitExpr(e);
      this.inLdmatrix = false;
      return v;
    }
    const v = super.visitExpr(e);
    return this.inLdmatrix && v.kind === "Call" && v.op === "bitwise_xor" ? v.args[0]! : v;
  }
}

function mutated(module: LoweredModule, mutator: IRMutator): LoweredModule {
  return { ...module, kernels: module.kernels.map((k) => ({ ...k, body: mutator.visitStmt(k.body) })) };
}

describe("swizzled shared tiles in the simulator", () => {
  for (const pipelineStages of [1, 3])
    it(`fp16 mma 128³, ${pipelineStages} stage(s): the executor's bits, no race`, () => {
      const module = lower(mmaGemmSchedule(128, { ...SMALL_MMA_PARAMS, ...SWIZZLED, pipelineStages }), "nvidia/a100");
      const r = differingBits(module, 128, 13);
      expect(r.differing).toBe(0);
      expect(r.races).toBe(0);
      expect(r.distinct).toBeGreaterThan(16000);
    });

  it("an ldmatrix that reads the swizzled tiles as plain ones gets other bits", () => {
    const module = lower(mmaGemmSchedule(64, { ...SMALL_MMA_PARAMS, ...SWIZZLED, pipelineStages: 2 }), "nvidia/a100");
    expect(differingBits(mutated(module, new UnswizzledLdmatrix()), 64, 3).differing).toBeGreaterThan(2000);
  });

  it("tf32 128³ (A through ldmatrix, B through 32-bit loads), 3 stages: the executor's bits", () => {
    const module = lower(tf32GemmSchedule(128, { ...SMALL_TF32_PARAMS, ...SWIZZLED, pipelineStages: 3, ldmatrixA: true }), "nvidia/a100");
    const r = differingGemmBits(tf32Gemm(128), module, 9);
    expect(r.differing).toBe(0);
    expect(r.races).toBe(0);
  });

  it("3xTF32 128³, 2 stages: the executor's bits", () => {
    const module = lower(tf32x3GemmSchedule(128, { ...SMALL_TF32X3_PARAMS, ...SWIZZLED, pipelineStages: 2 }), "nvidia/a100");
    const r = differingGemmBits(tf32x3Gemm(128), module, 5);
    expect(r.differing).toBe(0);
    expect(r.races).toBe(0);
  });
});

/**
 * The A and B sites of one block of the 128³ fp16 kernel with MMA_PARAMS' tiling in `layout`, at three
 * pipeline stages (the site counts below are those of its prologue, body and epilogue copies).
 */
function bankSites(layout: Pick<MmaGemmParams, "padShared" | "swizzle">): { ldmatrix: BankConflictSite[]; cpAsync: BankConflictSite[] } {
  const module = lower(mmaGemmSchedule(128, { ...MMA_PARAMS, pipelineStages: 3, ...layout }), "nvidia/a100");
  const report = simulate(module, randomArgs(mmaGemm(128), 1), { bankConflicts: true, blocks: [[0, 0, 0]] });
  const sites = report.bankConflicts!.sites;
  return { ldmatrix: sites.filter((s) => s.text.startsWith("T.ptx_legacy.ldmatrix")), cpAsync: sites.filter((s) => s.access === "store") };
}

describe("the bank-conflict report of the fp16 mma kernel's shared layouts", () => {
  it("swizzled: no conflict in ldmatrix reads or cp.async writes", () => {
    const { ldmatrix, cpAsync } = bankSites(SWIZZLED);
    expect(ldmatrix.length).toBe(4);
    expect(cpAsync.length).toBe(6);
    for (const s of [...ldmatrix, ...cpAsync]) {
      expect(s.conflicts).toBe(0);
      expect(s.wavefronts).toBe(s.idealWavefronts);
    }
    // cp.async moves 16 bytes per lane: 4 wavefronts per warp instruction at best.
    for (const s of cpAsync) expect(s.widthBytes).toBe(16);
  });

  it("padded: ldmatrix conflict-free, cp.async 2-way on rows whose 16-byte chunks straddle lines", () => {
    const { ldmatrix, cpAsync } = bankSites({ padShared: true, swizzle: false });
    for (const s of ldmatrix) expect(s.conflicts).toBe(0);
    expect(Math.max(...cpAsync.map((s) => s.worstWay))).toBe(2);
    expect(cpAsync.reduce((a, s) => a + s.conflicts, 0)).toBeGreaterThan(0);
  });

  it("plain: cp.async conflict-free, ldmatrix 4-way on A's 64-byte rows and 8-way on B's 256-byte rows", () => {
    const { ldmatrix, cpAsync } = bankSites({ padShared: false, swizzle: false });
    for (const s of cpAsync) expect(s.conflicts).toBe(0);
    expect(ldmatrix.map((s) => s.worstWay)).toEqual([4, 8, 4, 8]);
  });
});
