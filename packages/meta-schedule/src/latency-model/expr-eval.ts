/**
 * Integer evaluation of index expressions and conditions at one point (values for the loop,
 * thread and let variables), for the latency model's sampling: arithmetic, and the bitwise
 * intrinsics of swizzled shared addresses (`T.bitwise_xor`). Anything it cannot know (a load,
 * another intrinsic, an unbound variable) is undefined.
 */
import { type PrimExpr, type Var, evalIntBinary } from "@tessera/ir";

export type Env = ReadonlyMap<Var, number>;

const BITWISE: Readonly<Record<string, (a: number, b: number) => number>> = {
  bitwise_xor: (a, b) => a ^ b,
  bitwise_and: (a, b) => a & b,
  bitwise_or: (a, b) => a | b,
  shift_left: (a, b) => a << b,
  shift_right: (a, b) => a >> b,
};

/** The value of `e` at `env` (lane 0 of a vector), or undefined. */
export function evaluate(e: PrimExpr, env: Env): number | undefined {
  switch (e.kind) {
    case "IntImm":
    case "FloatImm":
      return e.value;
    case "Var":
      return env.get(e);
    case "Binary": {
      const a = evaluate(e.a, env);
      if (a === undefined) return undefined;
      const b = evaluate(e.b, env);
      return b === undefined ? undefined : evalIntBinary(e.op, a, b);
    }
    case "Not": {
      const a = evaluate(e.a, env);
      return a === undefined ? undefined : a === 0 ? 1 : 0;
    }
    case "Select": {
      const c = evaluate(e.condition, env);
      return c === undefined ? undefined : evaluate(c !== 0 ? e.trueValue : e.falseValue, env);
    }
    case "Cast": {
      const v = evaluate(e.value, env);
      return v === undefined ? undefined : e.dtype.startsWith("int") || e.dtype.startsWith("uint") ? Math.trunc(v) : v;
    }
    case "Ramp":
      return evaluate(e.base, env);
    case "Broadcast":
      return evaluate(e.value, env);
    case "Call": {
      const op = BITWISE[e.op];
      if (op === undefined || e.args.length !== 2) return undefined;
      const a = evaluate(e.args[0]!, env);
      const b = a === undefined ? undefined : evaluate(e.args[1]!, env);
      return a === undefined || b === undefined ? undefined : op(a, b);
    }
    case "Let": {
      const v = evaluate(e.value, env);
      if (v === undefined) return undefined;
      return evaluate(e.body, new Map(env).set(e.variable, v));
    }
    default:
      return undefined;
  }
}
