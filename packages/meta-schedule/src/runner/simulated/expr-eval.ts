/**
 * Integer evaluation of index expressions and conditions at one point (values for the loop,
 * thread and let variables), for the latency model's sampling. Anything it cannot know (a load,
 * an intrinsic, an unbound variable) is undefined.
 */
import { type PrimExpr, type Var, floorDivInt, floorModInt } from "@tessera/ir";

export type Env = ReadonlyMap<Var, number>;

function binary(op: string, a: number, b: number): number | undefined {
  switch (op) {
    case "add":
      return a + b;
    case "sub":
      return a - b;
    case "mul":
      return a * b;
    case "div":
      return b === 0 ? undefined : Math.trunc(a / b);
    case "mod":
      return b === 0 ? undefined : a % b;
    case "floordiv":
      return b === 0 ? undefined : floorDivInt(a, b);
    case "floormod":
      return b === 0 ? undefined : floorModInt(a, b);
    case "min":
      return Math.min(a, b);
    case "max":
      return Math.max(a, b);
    case "eq":
      return a === b ? 1 : 0;
    case "ne":
      return a !== b ? 1 : 0;
    case "lt":
      return a < b ? 1 : 0;
    case "le":
      return a <= b ? 1 : 0;
    case "gt":
      return a > b ? 1 : 0;
    case "ge":
      return a >= b ? 1 : 0;
    case "and":
      return a !== 0 && b !== 0 ? 1 : 0;
    case "or":
      return a !== 0 || b !== 0 ? 1 : 0;
    default:
      return undefined;
  }
}

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
      return b === undefined ? undefined : binary(e.op, a, b);
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
