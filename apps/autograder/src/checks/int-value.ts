/**
 * The integer value of an index expression at given loop values, computed directly: the checks
 * that enumerate a copy's iterations (up to 65,536 of them) would otherwise substitute and
 * simplify the IR at each one. Undefined for anything that is not plain integer arithmetic,
 * comparison or logic (a float, a load, a call): the caller then falls back to the IR's simplifier.
 */
import { type PrimExpr, type Var, evalIntBinary } from "@tessera/ir";

export function intValue(e: PrimExpr, env: ReadonlyMap<Var, number>): number | undefined {
  switch (e.kind) {
    case "IntImm":
      return e.value;
    case "Var":
      return env.get(e);
    case "Cast":
      return /^(u?int|bool)/.test(e.dtype) ? intValue(e.value, env) : undefined;
    case "Binary": {
      if (!/^(u?int|bool)/.test(e.a.dtype)) return undefined;
      const a = intValue(e.a, env);
      const b = a === undefined ? undefined : intValue(e.b, env);
      const v = a === undefined || b === undefined ? undefined : evalIntBinary(e.op, a, b);
      // `+ 0` turns a -0 (a negative product or quotient of 0) into 0: integers have no signed zero.
      return v === undefined ? undefined : v + 0;
    }
    case "Not": {
      const a = intValue(e.a, env);
      return a === undefined ? undefined : a === 0 ? 1 : 0;
    }
    case "Select": {
      const c = intValue(e.condition, env);
      return c === undefined ? undefined : intValue(c !== 0 ? e.trueValue : e.falseValue, env);
    }
    default:
      return undefined;
  }
}
