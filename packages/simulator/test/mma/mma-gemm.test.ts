/**
 * Issue 34's target without a GPU, for mma.sync: the ldmatrix + m16n8k16 GEMM (fp16 operands,
 * fp32 accumulation) runs in the simulator with the PTX fragment layouts, lane by lane, and agrees
 * bit for bit with the executor on the unscheduled function, also software-pipelined (cp.async
 * into double-buffered tiles that ldmatrix reads through pointers). A kernel that uses a fragment in the
 * wrong layout (B loaded without .trans) is caught as a mismatch; lanes that skip a collective
 * call are a WarpDivergenceError.
 */
import { type LoweredModule, lower } from "@tessera/codegen";
import { SMALL_MMA_PARAMS, mmaGemm, mmaGemmSchedule } from "@tessera/corpus";
import { type Call, IRMutator, type PrimExpr, type Stmt, type Var, ifThenElseStmt, intImm, lt, randomArgs } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { FragmentMisuseError, WarpDivergenceError, simulate } from "../../src/index.js";
import { differingBits } from "./mma-gemm-bits.js";

/** The module with every device statement rewritten by `mutator`. */
function mutated(module: LoweredModule, mutator: IRMutator): LoweredModule {
  return { ...module, kernels: module.kernels.map((k) => ({ ...k, body: mutator.visitStmt(k.body) })) };
}

/** Turns the B operand's ldmatrix.trans into a plain ldmatrix: B's registers then hold Bᵀ's layout. */
class DropTrans extends IRMutator {
  override visitExpr(e: PrimExpr): PrimExpr {
    const v = super.visitExpr(e);
    if (v.kind !== "Call" || v.op !== "ptx_legacy.ldmatrix" || v.args[0]?.kind !== "IntImm" || v.args[0].value === 0) return v;
    return { ...v, args: [intImm(0, "bool"), ...v.args.slice(1)] } satisfies Call;
  }
}

/** Fills 16 accumulator registers where the lane has 8. */
class LongFill extends IRMutator {
  override visitExpr(e: PrimExpr): PrimExpr {
    const v = super.visitExpr(e);
    if (v.kind !== "Call" || v.op !== "cuda.mma_fill_legacy") return v;
    return { ...v, args: [intImm(16), ...v.args.slice(1)] } satisfies Call;
  }
}

/** Wraps each mma.sync in `if threadIdx.x < 31`: the last lane of every warp skips it. */
class SkipLastLane extends IRMutator {
  private lane: Var | undefined;

  override visitStmt(s: Stmt): Stmt {
    if (s.kind === "AttrStmt" && s.key === "thread_extent" && s.node?.name === "threadIdx.x") this.lane = s.node;
    const v = super.visitStmt(s);
    if (v.kind !== "Evaluate" || v.value.kind !== "Call" || v.value.op !== "ptx_legacy.mma" || this.lane === undefined) return v;
    return ifThenElseStmt(lt(this.lane, 31), v);
  }
}

describe("the mma.sync GEMM in the simulator", () => {
  const module = lower(mmaGemmSchedule(128), "nvidia/a100");
  const small = lower(mmaGemmSchedule(64), "nvidia/a100");

  it("128³: C has the executor's bits", () => {
    const r = differingBits(module, 128, 5);
    expect(r.differing).toBe(0);
    expect(r.races).toBe(0);
    // Not vacuous: the sums differ from element to element.
    expect(r.distinct).toBeGreaterThan(16000);
  });

  it("64³ with a double-buffered cp.async pipeline: the executor's bits, no race", () => {
    const pipelined = lower(mmaGemmSchedule(64, { ...SMALL_MMA_PARAMS, pipelineStages: 2 }), "nvidia/a100");
    const r = differingBits(pipelined, 64, 7);
    expect(r.differing).toBe(0);
    expect(r.races).toBe(0);
  });

  for (const pipelineStages of [3, 4])
    it(`128³ with a ${pipelineStages}-stage cp.async pipeline (tiles in dynamic shared memory): the executor's bits, no race`, () => {
      const pipelined = lower(mmaGemmSchedule(128, { ...SMALL_MMA_PARAMS, pipelineStages }), "nvidia/a100");
      expect(pipelined.kernels[0]!.launch.dynamicSharedBytes).toBeGreaterThan(0);
      const r = differingBits(pipelined, 128, 11);
      expect(r.differing).toBe(0);
      expect(r.races).toBe(0);
    });

  it("finds a fragment loaded in the wrong layout (ldmatrix without .trans for B)", () => {
    const r = differingBits(mutated(small, new DropTrans()), 64, 3);
    expect(r.differing).toBeGreaterThan(4000);
  });

  it("refuses a fill past a lane's registers, naming the call", () => {
    const broken = mutated(small, new LongFill());
    expect(() => simulate(broken, randomArgs(mmaGemm(64), 1))).toThrow(FragmentMisuseError);
    expect(() => simulate(broken, randomArgs(mmaGemm(64), 1))).toThrow(
      /T\.cuda\.mma_fill_legacy\(16, C_warp, 0.*: lane 0's 16 registers from 0 are outside its 8/,
    );
  });

  it("refuses a warp whose lanes do not all reach an mma.sync", () => {
    const broken = mutated(small, new SkipLastLane());
    const args = randomArgs(mmaGemm(64), 1);
    expect(() => simulate(broken, args)).toThrow(WarpDivergenceError);
    // Lane 31 runs on to the next k step's ldmatrix while the others wait at the MMA.
    expect(() => simulate(broken, args)).toThrow(
      /warp 0: the lanes of the warp reach different warp-collective calls: T\.ptx_legacy\.mma\(.* and T\.ptx_legacy\.ldmatrix\(/,
    );
  });
});
