/**
 * The integer value of an expression for given variable values, computed directly (shapes and
 * strides at argument binding, index expressions enumerated over many loop values, where
 * substituting and simplifying the IR each time would be slow). Undefined for anything that is
 * not integer arithmetic, comparison, logic or a bitwise intrinsic (a float, a load, another call), or a division by zero:
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
    case "Call": {
      const op = BITWISE[e.op];
      if (op === undefined || e.args.length !== 2 || !/^(u?int|bool)/.test(e.dtype)) return undefined;
      const a = evalIntExpr(e.args[0]!, env);
      const b = a === undefined ? undefined : evalIntExpr(e.args[1]!, env);
      return a === undefined || b === undefined ? undefined : op(a, b);
    }
    default:
      return undefined;
  }
}

/** The bitwise intrinsics on 32-bit integers (swizzled layouts XOR their chunk indices). */
const BITWISE: Readonly<Record<string, ((a: number, b: number) => number | undefined) | undefined>> = {
  bitwise_xor: (a, b) => a ^ b,
  bitwise_and: (a, b) => a & b,
  bitwise_or: (a, b) => a | b,
  shift_left: (a, b) => (b >= 0 && b < 31 ? a << b : undefined),
  shift_right: (a, b) => (b >= 0 && b < 32 ? a >> b : undefined),
};
