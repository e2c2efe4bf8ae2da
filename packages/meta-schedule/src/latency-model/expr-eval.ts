/**
 * Integer evaluation of index expressions and conditions at one point (values for the loop,
 * thread and let variables), for the latency model's sampling: arithmetic, and the bitwise
 * intrinsics of swizzled shared addresses (`T.bitwise_xor`). Anything it cannot know (a load,
 * another intrinsic, an unbound variable) is undefined.
 *
 * `evaluatorOf` gives the same values as `evaluate`, from a closure built once per expression: the
 * model evaluates each access's index at 32 lanes of 8 sampled points, and walking the expression
 * anew each time was about half of an estimate's cost.
 */
import { type BinaryOp, type PrimExpr, type Var, evalIntBinary } from "@tessera/ir";

export type Env = ReadonlyMap<Var, number>;

/** `e`'s value at a point, as `evaluate(e, env)` gives it. */
export type Evaluator = (env: Env) => number | undefined;

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

const UNKNOWN: Evaluator = () => undefined;

/**
 * `evaluate` of `e` as a closure. `memo` keeps the closures built (a profile keeps one per
 * kernel: not a WeakMap over every expression of every module, whose entries cost the collector).
 */
export function evaluatorOf(e: PrimExpr, memo: Map<PrimExpr, Evaluator> = new Map()): Evaluator {
  let f = memo.get(e);
  if (f === undefined) {
    f = compile(e, memo);
    memo.set(e, f);
  }
  return f;
}

/** The closure of each case of `evaluate`, operand closures built first. */
function compile(e: PrimExpr, memo: Map<PrimExpr, Evaluator>): Evaluator {
  switch (e.kind) {
    case "IntImm":
    case "FloatImm": {
      const value = e.value;
      return () => value;
    }
    case "Var":
      return (env) => env.get(e);
    case "Binary":
      return binaryEvaluator(e.op, evaluatorOf(e.a, memo), evaluatorOf(e.b, memo));
    case "Not": {
      const a = evaluatorOf(e.a, memo);
      return (env) => {
        const v = a(env);
        return v === undefined ? undefined : v === 0 ? 1 : 0;
      };
    }
    case "Select": {
      const condition = evaluatorOf(e.condition, memo);
      const whenTrue = evaluatorOf(e.trueValue, memo);
      const whenFalse = evaluatorOf(e.falseValue, memo);
      return (env) => {
        const c = condition(env);
        return c === undefined ? undefined : c !== 0 ? whenTrue(env) : whenFalse(env);
      };
    }
    case "Cast": {
      const value = evaluatorOf(e.value, memo);
      if (!(e.dtype.startsWith("int") || e.dtype.startsWith("uint"))) return value;
      return (env) => {
        const v = value(env);
        return v === undefined ? undefined : Math.trunc(v);
      };
    }
    case "Ramp":
      return evaluatorOf(e.base, memo);
    case "Broadcast":
      return evaluatorOf(e.value, memo);
    case "Call": {
      const op = BITWISE[e.op];
      if (op === undefined || e.args.length !== 2) return UNKNOWN;
      const a = evaluatorOf(e.args[0]!, memo);
      const b = evaluatorOf(e.args[1]!, memo);
      return (env) => {
        const x = a(env);
        const y = x === undefined ? undefined : b(env);
        return x === undefined || y === undefined ? undefined : op(x, y);
      };
    }
    case "Let": {
      const value = evaluatorOf(e.value, memo);
      const body = evaluatorOf(e.body, memo);
      const variable = e.variable;
      return (env) => {
        const v = value(env);
        return v === undefined ? undefined : body(new Map(env).set(variable, v));
      };
    }
    default:
      return UNKNOWN;
  }
}

/** `evalIntBinary(op, a, b)` of the operands' values; the operators of index arithmetic inline. */
function binaryEvaluator(op: BinaryOp, a: Evaluator, b: Evaluator): Evaluator {
  switch (op) {
    case "add":
      return (env) => {
        const x = a(env);
        if (x === undefined) return undefined;
        const y = b(env);
        return y === undefined ? undefined : x + y;
      };
    case "sub":
      return (env) => {
        const x = a(env);
        if (x === undefined) return undefined;
        const y = b(env);
        return y === undefined ? undefined : x - y;
      };
    case "mul":
      return (env) => {
        const x = a(env);
        if (x === undefined) return undefined;
        const y = b(env);
        return y === undefined ? undefined : x * y;
      };
    default:
      return (env) => {
        const x = a(env);
        if (x === undefined) return undefined;
        const y = b(env);
        return y === undefined ? undefined : evalIntBinary(op, x, y);
      };
  }
}
