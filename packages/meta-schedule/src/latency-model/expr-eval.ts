/**
 * Integer evaluation of index expressions and conditions at one point (values for the loop,
 * thread and let variables), for the latency model's sampling. Anything it cannot know (a load,
 * an intrinsic, an unbound variable) is undefined.
 */
import { type PrimExpr, type Var, evalIntBinary } from "@tessera/ir";

export type Env = ReadonlyMap<Var, number>;

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
    case "Let": {
      const v = evaluate(e.value, env);
      if (v === undefined) return undefined;
      return evaluate(e.body, new Map(env).set(e.variable, v));
    }
    default:
      return undefined;
  }
}
