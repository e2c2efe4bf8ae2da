/**
 * TVM's CanonicalSimplifier writes a sum in its own order: terms by descending coefficient (a
 * stable sort), positive terms first, then a positive constant, then the negative terms
 * subtracted, then a negative constant (`y * 2 + 1 - x * 2`, `0 - y` when nothing is positive).
 * `canonicalOrder` rewrites the sums of an already simplified expression into that order; the
 * values do not change (the same terms, added in another order). Lowering keeps its own order,
 * which the generated CUDA depends on.
 */
import { dtypeInfo } from "../dtype.js";
import { type PrimExpr, add, binary, bufferLoad, call, cast, intImm, mul, not, select, sub } from "../expr.js";
import { isIntegerDType } from "./intBound.js";
import { type LinearTerm, linearFormOf } from "./linearForm.js";

function isSum(e: PrimExpr): boolean {
  return (
    e.kind === "Binary" &&
    (e.op === "add" || e.op === "sub" || (e.op === "mul" && (e.a.kind === "IntImm" || e.b.kind === "IntImm"))) &&
    isIntegerDType(e.dtype) &&
    dtypeInfo(e.dtype).lanes === 1
  );
}

export function canonicalOrder(e: PrimExpr): PrimExpr {
  if (isSum(e)) return orderedSum(e);
  switch (e.kind) {
    case "Binary":
      return binary(e.op, canonicalOrder(e.a), canonicalOrder(e.b));
    case "Not":
      return not(canonicalOrder(e.a));
    case "Select":
      return select(canonicalOrder(e.condition), canonicalOrder(e.trueValue), canonicalOrder(e.falseValue));
    case "Cast":
      return cast(e.dtype, canonicalOrder(e.value));
    case "Call":
      return call(e.dtype, e.op, e.args.map(canonicalOrder));
    case "BufferLoad":
      return bufferLoad(e.buffer, e.indices.map(canonicalOrder));
    default:
      return e;
  }
}

function orderedSum(e: PrimExpr): PrimExpr {
  const f = linearFormOf(e);
  const dt = f.dtype;
  const terms = f.terms.map((t) => ({ ...t, atom: canonicalOrder(t.atom) })).sort((a, b) => b.coef - a.coef);
  const term = (t: LinearTerm, scale: number): PrimExpr => (scale === 1 ? t.atom : mul(t.atom, intImm(scale, dt)));
  let acc: PrimExpr | undefined;
  const plus = (x: PrimExpr): void => {
    acc = acc === undefined ? x : add(acc, x);
  };
  const minus = (x: PrimExpr): void => {
    acc = sub(acc ?? intImm(0, dt), x);
  };
  for (const t of terms) if (t.coef > 0) plus(term(t, t.coef));
  if (f.constant > 0) plus(intImm(f.constant, dt));
  for (const t of terms) if (t.coef < 0) minus(term(t, -t.coef));
  if (f.constant < 0) minus(intImm(-f.constant, dt));
  return acc ?? intImm(0, dt);
}
