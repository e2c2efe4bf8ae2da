/**
 * Predicated vector loads and stores (`A.vload(..., predicate=m)`) have no lowering here: TVM's C
 * and CUDA code generators refuse them too ("Predicated buffer load is not supported."). They are
 * refused before any pass runs, so that no pass can drop a mask on the way.
 */
import { type PrimFunc, forEachExpr, forEachStmt, printExpr } from "@tessera/ir";
import { LoweringError } from "./errors.js";

export function refusePredicatedAccess(func: PrimFunc): void {
  forEachStmt(func.body, (s) => {
    if (s.kind === "BufferStore" && s.predicate !== undefined) {
      throw new LoweringError("lower", `Predicated buffer store is not supported (the store to ${s.buffer.name} under the mask ${printExpr(s.predicate)})`);
    }
  });
  forEachExpr(func.body, (e) => {
    if (e.kind === "BufferLoad" && e.predicate !== undefined) {
      throw new LoweringError("lower", `Predicated buffer load is not supported (the load of ${e.buffer.name} under the mask ${printExpr(e.predicate)})`);
    }
  });
}
