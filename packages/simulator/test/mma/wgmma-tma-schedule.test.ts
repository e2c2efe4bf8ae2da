/**
 * The wgmma GEMM schedule with its stages loaded by TMA (`tma: true`: the copy blocks annotated
 * `tma_copy`, lowered by lowerTmaCopy into one thread's boxes on a full mbarrier per pipeline
 * version) in the simulator: the executor's bits, and the mistakes the pass must not make caught
 * (other bits) — a consumer that does not wait for its version's phase, a barrier armed with fewer
 * bytes than its boxes carry, a wait for the other round's parity.
 */
import { type LoweredModule, lower } from "@tessera/codegen";
import { WGMMA_PARAMS, type WgmmaGemmParams, wgmmaGemm, wgmmaGemmSchedule } from "@tessera/corpus";
import { IRMutator, MBARRIER_ARRIVE_EXPECT_TX, MBARRIER_WAIT_PARITY, type PrimExpr, type Stmt, evaluate, intImm, sub } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { differingGemmBits } from "../tensor-core-bits.js";
import { differingOrRefused, mutated } from "./wgmma-mutations.js";

function lowered(n: number, params: WgmmaGemmParams): LoweredModule {
  return lower(wgmmaGemmSchedule(n, { ...params, tma: true }), "nvidia/h100");
}

/** Drops every consumer's wait for its version's full barrier. */
class NoFullWait extends IRMutator {
  override visitStmt(s: Stmt): Stmt {
    if (s.kind === "Evaluate" && s.value.kind === "Call" && s.value.op === MBARRIER_WAIT_PARITY) return evaluate(intImm(0));
    return super.visitStmt(s);
  }
}

/** Arms each full barrier with a third of the stage's bytes (A's box: the phase completes with B's in flight). */
class ShortExpectTx extends IRMutator {
  override visitExpr(e: PrimExpr): PrimExpr {
    const v = super.visitExpr(e);
    return v.kind === "Call" && v.op === MBARRIER_ARRIVE_EXPECT_TX ? { ...v, args: [v.args[0]!, intImm(16384)] } : v;
  }
}

/** Waits for the other round's parity (1 − p): a phase not yet completed, or one completed a round ago. */
class WrongParity extends IRMutator {
  override visitExpr(e: PrimExpr): PrimExpr {
    const v = super.visitExpr(e);
    return v.kind === "Call" && v.op === MBARRIER_WAIT_PARITY ? { ...v, args: [v.args[0]!, sub(intImm(1), v.args[1]!)] } : v;
  }
}

describe("the TMA-loaded wgmma GEMM schedule in the simulator", () => {
  it("has the executor's bits at 256³ with WGMMA_PARAMS (128×256 tiles, 3 stages)", () => {
    const r = differingGemmBits(wgmmaGemm(256), lowered(256, WGMMA_PARAMS), 13);
    expect(r).toEqual({ ...r, differing: 0, races: 0 });
  }, 300_000);

  it("has the executor's bits at 256³ with 4 stages of 64×128 tiles (two loads ahead, the epilogue's rounds)", () => {
    const r = differingGemmBits(wgmmaGemm(256), lowered(256, { warpgroups: 1, n: 128, pipelineStages: 4 }), 7);
    expect(r).toEqual({ ...r, differing: 0, races: 0 });
  }, 300_000);

  it("computes other bits without the consumers' full waits, with a short expect_tx, and with the other round's parity", () => {
    const module = lowered(256, { warpgroups: 1, n: 128, pipelineStages: 3 });
    expect(differingGemmBits(wgmmaGemm(256), module, 3)).toMatchObject({ differing: 0, races: 0 });
    // The wgmmas read a stage before its boxes land (the simulator lands them when a phase must
    // complete): the tile's previous round, or nothing written yet.
    for (const mistake of [new NoFullWait(), new ShortExpectTx(), new WrongParity()])
      expect(differingOrRefused(wgmmaGemm(256), 256, mutated(module, mistake), 3), mistake.constructor.name).toBeGreaterThan(0);
  }, 300_000);
});
