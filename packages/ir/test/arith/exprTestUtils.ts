/** Test helpers: an infix formatter for readable assertions and a reference evaluator. */
import type { PrimExpr, Var } from "../../src/expr.js";

const INFIX: Record<string, string> = {
  add: "+",
  sub: "-",
  mul: "*",
  floordiv: "//",
  floormod: "%",
  eq: "==",
  ne: "!=",
  lt: "<",
  le: "<=",
  gt: ">",
  ge: ">=",
  and: "&&",
  or: "||",
};

/** Formats like TVMScript, fully parenthesising nested binary operands except left-assoc +,-. */
export function show(e: PrimExpr): string {
  switch (e.kind) {
    case "IntImm":
      return e.dtype === "bool" ? (e.value ? "True" : "False") : String(e.value);
    case "FloatImm":
      return String(e.value);
    case "Var":
      return e.name;
    case "Binary": {
      const sym = INFIX[e.op];
      if (sym === undefined) return `T.${e.op === "mod" ? "truncmod" : e.op === "div" ? "truncdiv" : e.op}(${show(e.a)}, ${show(e.b)})`;
      const p = PRECEDENCE[e.op]!;
      const left = precedenceOf(e.a) < p ? `(${show(e.a)})` : show(e.a);
      const right = precedenceOf(e.b) <= p ? `(${show(e.b)})` : show(e.b);
      return `${left} ${sym} ${right}`;
    }
    case "Not":
      return `not ${show(e.a)}`;
    case "Select":
      return `T.Select(${show(e.condition)}, ${show(e.trueValue)}, ${show(e.falseValue)})`;
    case "Cast":
      return `T.Cast("${e.dtype}", ${show(e.value)})`;
    case "Call":
      return `T.${e.op}(${e.args.map(show).join(", ")})`;
    default:
      return `<${e.kind}>`;
  }
}

const PRECEDENCE: Record<string, number> = {
  or: 1,
  and: 2,
  eq: 3,
  ne: 3,
  lt: 3,
  le: 3,
  gt: 3,
  ge: 3,
  add: 4,
  sub: 4,
  mul: 5,
  floordiv: 5,
  floormod: 5,
};

function precedenceOf(e: PrimExpr): number {
  return e.kind === "Binary" ? (PRECEDENCE[e.op] ?? 9) : 9;
}

/** Evaluates an integer/bool expression on mathematical integers (bools as 0/1). */
export function evalInt(e: PrimExpr, env: ReadonlyMap<Var, number>): number {
  // Integers have no signed zero; JS's -0 (from trunc or products) is normalised away.
  return evalRaw(e, env) + 0;
}

function evalRaw(e: PrimExpr, env: ReadonlyMap<Var, number>): number {
  switch (e.kind) {
    case "IntImm":
      return e.value;
    case "Var": {
      const v = env.get(e);
      if (v === undefined) throw new Error(`unassigned ${e.name}`);
      return v;
    }
    case "Binary": {
      const a = evalInt(e.a, env);
      const b = evalInt(e.b, env);
      switch (e.op) {
        case "add":
          return a + b;
        case "sub":
          return a - b;
        case "mul":
          return a * b;
        case "div":
          return Math.trunc(a / b);
        case "mod":
          return a - Math.trunc(a / b) * b;
        case "floordiv":
          return Math.floor(a / b);
        case "floormod":
          return a - Math.floor(a / b) * b;
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
          return a && b ? 1 : 0;
        case "or":
          return a || b ? 1 : 0;
      }
      throw new Error("unknown binary op");
    }
    case "Not":
      return evalInt(e.a, env) ? 0 : 1;
    case "Select":
      return evalInt(e.condition, env) ? evalInt(e.trueValue, env) : evalInt(e.falseValue, env);
    case "Cast":
      return evalInt(e.value, env);
    default:
      throw new Error(`cannot evaluate ${e.kind}`);
  }
}
