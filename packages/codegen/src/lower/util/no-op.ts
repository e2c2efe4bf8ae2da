/** What does nothing: pure expressions, empty statements, stores of an element to itself. */
import { type BufferStore, type PrimExpr, type Stmt, forEachExpr, intrinsicInfo, sameExprStructure } from "@tessera/ir";

/** Whether an expression has no effect beyond its value (no call of an impure or unknown intrinsic). */
export function isPure(e: PrimExpr): boolean {
  let pure = true;
  forEachExpr(e, (x) => {
    if (x.kind === "Call" && intrinsicInfo(x.op)?.pure !== true) pure = false;
  });
  return pure;
}

/** Whether `s` does nothing at all. */
export function isNoOp(s: Stmt): boolean {
  if (s.kind === "Evaluate") return isPure(s.value);
  if (s.kind === "SeqStmt") return s.seq.every(isNoOp);
  return false;
}

/** `A[i] = A[i]`. */
export function isSelfCopy(s: BufferStore): boolean {
  const v = s.value;
  return (
    v.kind === "BufferLoad" && v.buffer === s.buffer && v.indices.length === s.indices.length && v.indices.every((x, i) => sameExprStructure(x, s.indices[i]!))
  );
}
