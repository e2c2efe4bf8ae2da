/** Barriers of lowered code: `Evaluate(T.tvm_storage_sync("shared"))`. */
import { type Evaluate, type Stmt, evaluate, forEachStmt, storageSync } from "@tessera/ir";

export function barrier(scope = "shared"): Evaluate {
  return evaluate(storageSync(scope));
}

export function isBarrier(s: Stmt): boolean {
  return s.kind === "Evaluate" && s.value.kind === "Call" && s.value.op === "tvm_storage_sync";
}

export function containsBarrier(root: Stmt): boolean {
  let found = false;
  forEachStmt(root, (s) => {
    if (isBarrier(s)) found = true;
    return !found;
  });
  return found;
}
