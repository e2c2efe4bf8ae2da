/**
 * The tf32 wgmma GEMM (wgmmaTf32GemmSchedule: pre-pass kernels writing tf32(A) and tf32(B)ᵀ, then
 * wgmma.mma_async m64nNk8 tf32 from 128B-swizzled K-major shared tiles) in the simulator: bit for
 * bit the executor's C (the pre-passes round as `cvt.rna.tf32.f32`, the MMA sums in k order) with
 * one warpgroup at 128³ (two warpgroups with a 3- or 4-stage pipeline, and WGMMA_TF32_PARAMS, at
 * 256³: wgmma-tf32-gemm-large.test.ts, in the slow suite); a wrong
 * descriptor stride or unswizzled tiles get other bits; without the pre-passes' rounding the
 * simulated tensor cores truncate the operands to tf32, as the hardware does, which the function's
 * round-to-nearest does not. With `registerA` (A from registers, the register-A wgmma) the same
 * bits; A registers that do not hold tf32 values are refused.
 */
import { type LoweredModule, WGMMA_MMA_ASYNC, WGMMA_MMA_ASYNC_RS, WGMMA_WAIT_GROUP, codegenCuda, lower } from "@tessera/codegen";
import { SMALL_WGMMA_TF32_PARAMS, type WgmmaTf32Params, tf32Gemm, wgmmaTf32GemmSchedule } from "@tessera/corpus";
import { IRMutator, type PrimExpr, type Stmt, compilePrimFunc, forEachExpr, intImm, randomArgs } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { simulate } from "../../src/index.js";
import { differingGemmBits } from "../tensor-core-bits.js";
import { ScaledDescriptor, UnswizzledStores, differingOrRefused, mutated } from "./wgmma-mutations.js";

const N = 128;
const TWO_WARPGROUPS: WgmmaTf32Params = { warpgroups: 2, n: 128, pipelineStages: 3 };

const lowered = (n: number, params: WgmmaTf32Params): LoweredModule => lower(wgmmaTf32GemmSchedule(n, params), "nvidia/h100");

/** Sets argument 5 (trans_b) of every wgmma call to 1: B read MN-major, which tf32 does not have. */
class TransposedB extends IRMutator {
  override visitExpr(e: PrimExpr): PrimExpr {
    const v = super.visitExpr(e);
    return v.kind === "Call" && v.op === WGMMA_MMA_ASYNC ? { ...v, args: v.args.map((a, i) => (i === 5 ? intImm(1) : a)) } : v;
  }
}

/** The pre-passes copy their operand without rounding it: `tf32_round(x)` becomes x. */
class Unrounded extends IRMutator {
  override visitExpr(e: PrimExpr): PrimExpr {
    const v = super.visitExpr(e);
    return v.kind === "Call" && v.op === "tf32_round" ? v.args[0]! : v;
  }
}

const differing = (module: LoweredModule): number => differingOrRefused(tf32Gemm(N), N, module, 7);

const opsIn = (s: Stmt): Set<string> => {
  const ops = new Set<string>();
  forEachExpr(s, (e) => {
    if (e.kind === "Call") ops.add(e.op);
  });
  return ops;
};

describe("the tf32 wgmma GEMM in the simulator", () => {
  it("has the executor's bits at 128³ with one warpgroup of 64×64 tiles, no pipeline", () => {
    const r = differingGemmBits(tf32Gemm(N), lowered(N, SMALL_WGMMA_TF32_PARAMS), 3);
    expect(r).toEqual({ ...r, differing: 0, races: 0 });
    expect(r.distinct).toBeGreaterThan(N * N * 0.9);
  });

  it("runs the operand pre-passes as kernels of their own, before the GEMM, without wgmma waits at their barriers", () => {
    const module = lowered(256, TWO_WARPGROUPS);
    expect(module.kernels).toHaveLength(3);
    const [a, b, gemm] = module.kernels.map((k) => opsIn(k.body));
    for (const prepass of [a!, b!]) {
      expect(prepass.has("tf32_round")).toBe(true);
      expect([...prepass].filter((op) => op.startsWith("ptx.wgmma"))).toEqual([]);
    }
    expect(b!.has("tvm_storage_sync")).toBe(true);
    expect(gemm!.has(WGMMA_MMA_ASYNC) && gemm!.has(WGMMA_WAIT_GROUP)).toBe(true);
  });

  it("gets other bits when a descriptor's stride is wrong or the tiles are stored without the swizzle", () => {
    const module = lowered(N, TWO_WARPGROUPS);
    // Arguments 9 (A's SBO) and 12 (B's SBO).
    for (const index of [9, 12]) expect(differing(mutated(module, new ScaledDescriptor(index, 2))), `argument ${index}`).toBeGreaterThan(0);
    expect(differing(mutated(module, new UnswizzledStores()))).toBeGreaterThan(0);
  });

  it("refuses a tf32 wgmma that reads B MN-major (trans_b 1), in the simulator and in the CUDA generator, naming the rule", () => {
    const module = mutated(lowered(N, SMALL_WGMMA_TF32_PARAMS), new TransposedB());
    expect(() => differingGemmBits(tf32Gemm(N), module, 3)).toThrow(/tf32 B must be K-major \(trans_b 0\): PTX has no transpose for 32-bit operands/);
    expect(() => codegenCuda(module)).toThrow(/kernel tf32_gemm_kernel_2: .*tf32 B must be K-major \(trans_b 0\)/);
  });

  it("with A from registers (registerA: the register-A wgmma, no pre-pass for A): the executor's bits at 128³ (256³: the -large file)", () => {
    const small = lowered(N, { ...SMALL_WGMMA_TF32_PARAMS, registerA: true });
    expect(small.kernels).toHaveLength(2);
    expect(opsIn(small.kernels[1]!.body).has(WGMMA_MMA_ASYNC_RS)).toBe(true);
    const r = differingGemmBits(tf32Gemm(N), small, 3);
    expect(r).toEqual({ ...r, differing: 0, races: 0 });
    expect(r.distinct).toBeGreaterThan(N * N * 0.9);
  });

  it("refuses a register-A wgmma whose A registers do not hold tf32 values (the loads' rounding removed), naming the rule", () => {
    const module = mutated(lowered(N, { ...SMALL_WGMMA_TF32_PARAMS, registerA: true }), new Unrounded());
    expect(() => differingGemmBits(tf32Gemm(N), module, 3)).toThrow(/A register \d holds .*, not a tf32 value: round A to tf32 before a register-A wgmma/);
  });

  it("truncates float32 operands to tf32 as the tensor cores do when nothing rounded them", () => {
    const func = tf32Gemm(N);
    const args = randomArgs(func, 17, { low: -2, high: 2 }) as Float32Array[];
    // The executor on operands truncated beforehand (its round-to-nearest then keeps them): what the hardware computes.
    const truncated = args.map((x) => x.slice());
    for (const x of truncated.slice(0, 2)) {
      const bits = new Uint32Array(x.buffer);
      for (let i = 0; i < bits.length; i++) bits[i] = bits[i]! & 0xffffe000;
    }
    compilePrimFunc(func).run(truncated);
    const rounded = args.map((x) => x.slice());
    compilePrimFunc(func).run(rounded);
    const simulated = args.map((x) => x.slice());
    simulate(mutated(lowered(N, SMALL_WGMMA_TF32_PARAMS), new Unrounded()), simulated);
    expect(Array.from(simulated[2]!)).toEqual(Array.from(truncated[2]!));
    expect(Array.from(simulated[2]!)).not.toEqual(Array.from(rounded[2]!));
  });
});
