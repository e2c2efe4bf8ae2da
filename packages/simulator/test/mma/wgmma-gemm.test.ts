/**
 * The wgmma GEMM (Hopper `wgmma.mma_async` m64nNk16 from 128B-swizzled shared tiles through matrix
 * descriptors) in the simulator: bit for bit the executor's C at 128³ with one and two warpgroups,
 * the latter with a 3-stage cp.async pipeline, with 4 stages at 256³, with each stage's wgmmas
 * issued before the copies at 256³ and with WGMMA_PARAMS (128×256 tiles) at 256³. The simulator reads A and B the way the tensor cores do (descriptor offsets,
 * hardware swizzle), so a kernel whose descriptors have a wrong stride or leading byte offset, or
 * whose tiles are stored without the swizzle, gets other bits; and it keeps each wgmma group in
 * flight until a `wgmma.wait_group` retires it, so a wait too shallow for the copies that follow
 * (a tile overwritten while a group still reads it) is refused.
 */
import { type LoweredModule, WGMMA_WAIT_GROUP, lower } from "@tessera/codegen";
import { SMALL_WGMMA_PARAMS, WGMMA_PARAMS, type WgmmaGemmParams, wgmmaGemm, wgmmaGemmSchedule } from "@tessera/corpus";
import { IRMutator, type PrimExpr, intImm } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { differingGemmBits } from "../tensor-core-bits.js";
import { ScaledDescriptor, UnswizzledStores, differingOrRefused, mutated } from "./wgmma-mutations.js";

const N = 128;
/** Two warpgroups of 64×128, 3 cp.async stages: a pipelined kernel that tiles 128³. */
const TWO_WARPGROUPS: WgmmaGemmParams = { warpgroups: 2, n: 128, pipelineStages: 3 };

function lowered(params = TWO_WARPGROUPS): LoweredModule {
  return lower(wgmmaGemmSchedule(N, params), "nvidia/h100");
}

/** Every `wgmma.wait_group` waits for nothing (7 groups may stay pending): the groups stay in flight until the store's wait. */
class ShallowWaits extends IRMutator {
  override visitExpr(e: PrimExpr): PrimExpr {
    const v = super.visitExpr(e);
    return v.kind === "Call" && v.op === WGMMA_WAIT_GROUP && v.args[0]?.kind === "IntImm" && v.args[0].value > 0
      ? { ...v, args: [intImm(7), ...v.args.slice(1)] }
      : v;
  }
}

const differing = (module: LoweredModule): number => differingOrRefused(wgmmaGemm(N), N, module, 7);

describe("the wgmma GEMM in the simulator", () => {
  it("has the executor's bits at 128³ with one warpgroup of 64×64 tiles, no pipeline", () => {
    const r = differingGemmBits(wgmmaGemm(N), lowered(SMALL_WGMMA_PARAMS), 3);
    expect(r).toEqual({ ...r, differing: 0, races: 0 });
  });

  it("has the executor's bits at 128³ with two warpgroups, 128×128 tiles, 3 cp.async stages", () => {
    const r = differingGemmBits(wgmmaGemm(N), lowered(), 5);
    expect(r).toEqual({ ...r, differing: 0, races: 0 });
  });

  it("has the executor's bits at 256³ with 4 cp.async stages (the pipeline's steady state runs)", () => {
    const n = 256;
    const r = differingGemmBits(wgmmaGemm(n), lower(wgmmaGemmSchedule(n, { ...TWO_WARPGROUPS, pipelineStages: 4 }), "nvidia/h100"), 11);
    expect(r).toEqual({ ...r, differing: 0, races: 0 });
  });

  it("has the executor's bits at 256³ with WGMMA_PARAMS", () => {
    const n = 256;
    const r = differingGemmBits(wgmmaGemm(n), lower(wgmmaGemmSchedule(n, WGMMA_PARAMS), "nvidia/h100"), 13);
    expect(r).toEqual({ ...r, differing: 0, races: 0 });
  });

  it("has the executor's bits at 256³ with each stage's wgmmas before the copies (one barrier per k stage), and refuses its wait made shallower", () => {
    const n = 256;
    const module = lower(wgmmaGemmSchedule(n, { ...TWO_WARPGROUPS, wgmmaBeforeCopies: true }), "nvidia/h100");
    const r = differingGemmBits(wgmmaGemm(n), module, 17);
    expect(r).toEqual({ ...r, differing: 0, races: 0 });
    expect(() => differingGemmBits(wgmmaGemm(n), mutated(module, new ShallowWaits()), 17)).toThrow(/before wgmma.wait_group retired the group/);
  });

  it("refuses a wait that leaves in flight a group whose shared tile the next copies overwrite", () => {
    const n = 256;
    const module = lower(wgmmaGemmSchedule(n, TWO_WARPGROUPS), "nvidia/h100");
    // 4 k stages in 3 versions: the copies of stage 3 overwrite the tile the wgmmas of stage 0 read.
    expect(() => differingGemmBits(wgmmaGemm(n), mutated(module, new ShallowWaits()), 5)).toThrow(
      /shared element \d+ that an in-flight wgmma group read .* was overwritten .* before wgmma.wait_group retired the group/,
    );
  });

  it("gets other bits when a descriptor's stride or leading byte offset is wrong", () => {
    const module = lowered();
    // Arguments 9 (A's SBO), 11 (B's LBO) and 12 (B's SBO).
    for (const index of [9, 11, 12]) expect(differing(mutated(module, new ScaledDescriptor(index, 2))), `argument ${index}`).toBeGreaterThan(0);
  });

  it("gets other bits when the shared tiles are stored without the 128-byte swizzle", () => {
    expect(differing(mutated(lowered(), new UnswizzledStores()))).toBeGreaterThan(0);
  });
});
