/**
 * DisallowDynamicLoop (TVM's `Postproc::DisallowDynamicLoop`): rejects a sample with a loop whose
 * extent is not a constant.
 */
import { forEachStmt, printExpr } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import { POSTPROC_OK, type Postproc, type PostprocResult, rejected } from "../interfaces/postproc.js";

export function disallowDynamicLoop(): Postproc {
  return {
    name: "disallowDynamicLoop",
    apply(sch: Schedule): PostprocResult {
      let dynamic: string | undefined;
      forEachStmt(sch.func.body, (s) => {
        if (dynamic !== undefined) return false;
        if (s.kind === "For" && s.extent.kind !== "IntImm") dynamic = `loop ${s.loopVar.name} has the dynamic extent ${printExpr(s.extent)}`;
        return undefined;
      });
      return dynamic === undefined ? POSTPROC_OK : rejected(dynamic);
    },
  };
}
