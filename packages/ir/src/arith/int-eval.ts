/**
 * The integer value of an expression for given variable values, computed directly (shapes and
 * strides at argument binding, index expressions enumerated over many loop values, where
 * substituting and simplifying the IR each time would be slow). Undefined for anything that is
 * not integer arithmetic, comparison or logic (a float, a load, a call), or a division by zero:
 * the caller then falls back to the simplifier, which may still fold it (`0 // x` is 0).
 */
import type { PrimExpr, Var } from "../expr.js";
import { evalIntBinary } from "./constFold.js";

export function evalIntExpr(e: PrimExpr, env: ReadonlyMap<Var, number>): number | undefined {
  switch (e.kind) {
    case "IntImm":
      return e.value;
    case "Var":
      return env.get(e);
    case "Cast":
      return /^(u?int|bool)/.test(e.dtype) ? evalIntExpr(e.value, env) : undefined;
    case "Binary": {
      if (!/^(u?int|bool)/.test(e.a.dtype)) return undefined;
      const a = evalIntExpr(e.a, env);
      const b = a === undefined ? undefined : evalIntExpr(e.b, env);
      const v = a === undefined || b === undefined ? undefined : evalIntBinary(e.op, a, b);
      // `+ 0` turns a -0 (a negative product or quotient of 0) into 0: integers have no signed zero.
      return v === undefined ? undefined : v + 0;
    }
    case "Not": {
      const a = evalIntExpr(e.a, env);
      return a === undefined ? undefined : a === 0 ? 1 : 0;
    }
    case "Select": {
      const c = evalIntExpr(e.condition, env);
      return c === undefined ? undefined : evalIntExpr(c !== 0 ? e.trueValue : e.falseValue, env);
    }
    default:
      return undefined;
  }
}
