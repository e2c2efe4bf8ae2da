/**
 * Ranges written as bounds (`lo:hi`, `T.serial(lo, hi)`, `T.axis.spatial((lo, hi), v)`) are stored
 * as `(min, extent)`. The printer writes `min:min + extent`, so recognising `hi = lo + e` gives
 * back exactly the extent that was printed instead of an unsimplified `hi - lo`.
 */
import { type PrimExpr, intImm, sub } from "../expr.js";
import type { Range } from "../stmt.js";

export function rangeFromBounds(lo: PrimExpr, hi: PrimExpr): Range {
  return { min: lo, extent: extentOf(lo, hi) };
}

/** `hi - lo`, recognising `hi = lo + e` and `lo = 0`. */
export function extentOf(lo: PrimExpr, hi: PrimExpr): PrimExpr {
  if (lo.kind === "IntImm" && hi.kind === "IntImm") return intImm(hi.value - lo.value, hi.dtype);
  if (lo.kind === "IntImm" && lo.value === 0) return hi;
  if (hi.kind === "Binary" && hi.op === "add") {
    if (sameExpr(hi.a, lo)) return hi.b;
    if (sameExpr(hi.b, lo)) return hi.a;
  }
  return sub(hi, lo);
}

/** Structural equality of expressions, variables and buffers by identity. */
export function sameExpr(a: PrimExpr, b: PrimExpr): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind || a.dtype !== b.dtype) return false;
  switch (a.kind) {
    case "IntImm":
    case "FloatImm":
    case "StringImm":
      return a.value === (b as typeof a).value;
    case "Var":
      return false;
    case "Binary": {
      const o = b as typeof a;
      return a.op === o.op && sameExpr(a.a, o.a) && sameExpr(a.b, o.b);
    }
    case "Not":
      return sameExpr(a.a, (b as typeof a).a);
    case "Cast":
      return sameExpr(a.value, (b as typeof a).value);
    case "BufferLoad": {
      const o = b as typeof a;
      return a.buffer === o.buffer && sameList(a.indices, o.indices);
    }
    case "Call": {
      const o = b as typeof a;
      return a.op === o.op && sameList(a.args, o.args);
    }
    case "Select": {
      const o = b as typeof a;
      return sameExpr(a.condition, o.condition) && sameExpr(a.trueValue, o.trueValue) && sameExpr(a.falseValue, o.falseValue);
    }
    case "Ramp": {
      const o = b as typeof a;
      return a.lanes === o.lanes && sameExpr(a.base, o.base) && sameExpr(a.stride, o.stride);
    }
    case "Broadcast": {
      const o = b as typeof a;
      return a.lanes === o.lanes && sameExpr(a.value, o.value);
    }
    case "Let":
      return false;
  }
}

function sameList(a: readonly PrimExpr[], b: readonly PrimExpr[]): boolean {
  return a.length === b.length && a.every((x, i) => sameExpr(x, b[i]!));
}
