/**
 * Single mistakes planted in lowered wgmma kernels, for the simulator tests that check each one
 * changes the result: a descriptor's byte offset scaled, the swizzle dropped from the shared stores.
 */
import { type LoweredModule, WGMMA_MMA_ASYNC } from "@tessera/codegen";
import { IRMutator, type PrimExpr, intImm, mul } from "@tessera/ir";

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
