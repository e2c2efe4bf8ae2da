/**
 * Single mistakes planted in lowered wgmma kernels, for the simulator tests that check each one
 * changes the result: a descriptor's byte offset scaled, the swizzle dropped from the shared stores;
 * and how many elements of C such a kernel gets wrong.
 */
import { type LoweredModule, WGMMA_MMA_ASYNC } from "@tessera/codegen";
import { IRMutator, type PrimExpr, type PrimFunc, intImm, mul } from "@tessera/ir";
import { differingGemmBits } from "../tensor-core-bits.js";

/**
 * Elements of the n×n C that differ from the executor's, or all of them when the simulator refuses
 * the kernel: a read outside the shared buffer, or of a tile the next copies overwrite while a wgmma
 * group still reads it (what a wrong descriptor may also do).
 */
export function differingOrRefused(func: PrimFunc, n: number, module: LoweredModule, seed: number): number {
  try {
    return differingGemmBits(func, module, seed).differing;
  } catch (e) {
    if (e instanceof Error && /outside the shared buffer|before wgmma.wait_group retired the group/.test(e.message)) return n * n;
    throw e;
  }
}

/** The module with `mutator` applied to every kernel's body. */
export function mutated(module: LoweredModule, mutator: IRMutator): LoweredModule {
  return { ...module, kernels: module.kernels.map((k) => ({ ...k, body: mutator.visitStmt(k.body) })) };
}

/** Multiplies argument `index` of every wgmma call (a descriptor's byte offset) by `factor`. */
export class ScaledDescriptor extends IRMutator {
  constructor(
    private readonly index: number,
    private readonly factor: number,
  ) {
    super();
  }

  override visitExpr(e: PrimExpr): PrimExpr {
    const v = super.visitExpr(e);
    if (v.kind !== "Call" || v.op !== WGMMA_MMA_ASYNC) return v;
    return { ...v, args: v.args.map((a, i) => (i === this.index ? mul(a, intImm(this.factor)) : a)) };
  }
}

/** Stores the shared tiles plain: every XOR of the swizzle dropped outside the wgmma calls. */
export class UnswizzledStores extends IRMutator {
  override visitExpr(e: PrimExpr): PrimExpr {
    if (e.kind === "Call" && e.op === WGMMA_MMA_ASYNC) return e;
    const v = super.visitExpr(e);
    return v.kind === "Call" && v.op === "bitwise_xor" ? v.args[0]! : v;
  }
}
