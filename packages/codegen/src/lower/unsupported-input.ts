/**
 * What `lower` refuses before any pass runs, so that no pass can silently drop it:
 * - predicated vector loads and stores (`A.vload(..., predicate=m)`): TVM's C and CUDA code
 *   generators refuse them too ("Predicated buffer load is not supported.");
 * - scalable vectors (`T.Ramp(0, 1, T.vscale() * 4)`, dtypes such as `float32xvscalex4`): only
 *   TVM's LLVM backend for SVE / RISC-V V emits them, and none of our targets has such vectors;
 * - loops with a step (`T.serial(0, n, step=2)`): our passes assume unit steps; TVM's
 *   CanonicalizeLoop rewrites such a loop over `i * step + min`, which a schedule can do too.
 */
import { type BufferLoad, type BufferStore, type For, IRVisitor, type PrimExpr, type PrimFunc, isScalableVector, printExpr } from "@tessera/ir";
import { LoweringError } from "./errors.js";

class UnsupportedInputFinder extends IRVisitor {
  override visitExpr(e: PrimExpr): void {
    if (isScalableVector(e.dtype)) {
      throw new LoweringError("lower", `scalable vectors are not supported by our targets: ${printExpr(e)} has dtype ${e.dtype}`);
    }
    super.visitExpr(e);
  }

  override visitBufferLoad(e: BufferLoad): void {
    if (e.predicate !== undefined) {
      throw new LoweringError("lower", `Predicated buffer load is not supported (the load of ${e.buffer.name} under the mask ${printExpr(e.predicate)})`);
    }
    super.visitBufferLoad(e);
  }

  override visitBufferStore(s: BufferStore): void {
    if (s.predicate !== undefined) {
      throw new LoweringError("lower", `Predicated buffer store is not supported (the store to ${s.buffer.name} under the mask ${printExpr(s.predicate)})`);
    }
    super.visitBufferStore(s);
  }

  override visitFor(s: For): void {
    if (s.step !== undefined) {
      throw new LoweringError(
        "lower",
        `loop ${s.loopVar.name} has a step (${printExpr(s.step)}); lowering needs unit-step loops: loop over i and use i * step + min`,
      );
    }
    super.visitFor(s);
  }
}

export function refuseUnsupportedInput(func: PrimFunc): void {
  new UnsupportedInputFinder().visitStmt(func.body);
}
