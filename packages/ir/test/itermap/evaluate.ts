/** A tiny integer evaluator for index expressions and iterator-map forms (test-only). */
import type { PrimExpr, Var } from "../../src/expr.js";
import type { IterMark, IterSplit, IterSum } from "../../src/arith/iter-map/index.js";

export type Env = ReadonlyMap<Var, number>;

const floorDiv = (a: number, b: number): number => Math.floor(a / b);
const floorMod = (a: number, b: number): number => a - Math.floor(a / b) * b;

export function evalExpr(e: PrimExpr, env: Env): number {
  switch (e.kind) {
    case "IntImm":
      return e.value;
    case "Var": {
      const v = env.get(e);
      if (v === undefined) throw new Error(`unbound ${e.name}`);
      return v;
    }
    case "Cast":
      return evalExpr(e.value, env);
    case "Binary": {
      const [a, b] = [evalExpr(e.a, env), evalExpr(e.b, env)];
      switch (e.op) {
        case "add":
          return a + b;
        case "sub":
          return a - b;
        case "mul":
          return a * b;
        case "floordiv":
          return floorDiv(a, b);
        case "floormod":
          return floorMod(a, b);
        case "lt":
          return a < b ? 1 : 0;
        case "and":
          return a && b ? 1 : 0;
        default:
          throw new Error(`op ${e.op} not supported by the test evaluator`);
      }
    }
    default:
      throw new Error(`${e.kind} not supported by the test evaluator`);
  }
}

const num = (e: PrimExpr): number => {
  if (e.kind !== "IntImm") throw new Error("expected a constant");
  return e.value;
};

function evalMark(m: IterMark, env: Env): number {
  return m.source.kind === "IterSum" ? evalSum(m.source, env) : evalExpr(m.source, env);
}

function evalSplit(s: IterSplit, env: Env): number {
  return floorMod(floorDiv(evalMark(s.source, env), num(s.lowerFactor)), num(s.extent)) * num(s.scale);
}

export function evalSum(s: IterSum, env: Env): number {
  return s.args.reduce((acc, a) => acc + evalSplit(a, env), num(s.base));
}

/** Every assignment of the iterators over `[0, extent)`. */
export function* assignments(iters: readonly (readonly [Var, number])[]): Generator<Map<Var, number>> {
  const values = iters.map(() => 0);
  const total = iters.reduce((n, [, e]) => n * e, 1);
  for (let k = 0; k < total; k++) {
    let rest = k;
    for (let i = iters.length - 1; i >= 0; i--) {
      values[i] = rest % iters[i]![1];
      rest = Math.floor(rest / iters[i]![1]);
    }
    yield new Map(iters.map(([v], i) => [v, values[i]!]));
  }
}
