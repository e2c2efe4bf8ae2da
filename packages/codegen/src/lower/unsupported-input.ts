/**
 * What `lower` refuses before any pass runs, so that no pass can silently drop it:
 * - predicated vector loads and stores (`A.vload(..., predicate=m)`): TVM's C and CUDA code
 *   generators refuse them too ("Predicated buffer load is not supported.");
 * - loops with a step (`T.serial(0, n, step=2)`): our passes assume unit steps; TVM's
 *   CanonicalizeLoop rewrites such a loop over `i * step + min`, which a schedule can do too.
 */
import { type PrimFunc, forEachExpr, forEachStmt, printExpr } from "@tessera/ir";
import { LoweringError } from "./errors.js";

export function refuseUnsupportedInput(func: PrimFunc): void {
  forEachStmt(func.body, (s) => {
    if (s.kind === "BufferStore" && s.predicate !== undefined) {
      throw new LoweringError("lower", `Predicated buffer store is not supported (the store to ${s.buffer.name} under the mask ${printExpr(s.predicate)})`);
    }
    if (s.kind === "For" && s.step !== undefined) {
      throw new LoweringError(
        "lower",
        `loop ${s.loopVar.name} has a step (${printExpr(s.step)}); lowering needs unit-step loops: loop over i and use i * step + min`,
      );
    }
  });
  forEachExpr(func.body, (e) => {
    if (e.kind === "BufferLoad" && e.predicate !== undefined) {
      throw new LoweringError("lower", `Predicated buffer load is not supported (the load of ${e.buffer.name} under the mask ${printExpr(e.predicate)})`);
    }
  });
}
