/**
 * Attribute and annotation values (`T.func_attr({...})`, `T.block_attr({...})`,
 * `annotations={...}`): strings, numbers, booleans, lists, nested dicts, or expressions.
 */
import type { AttrValue } from "../stmt.js";
import type { PyExpr } from "./ast.js";
import { fail } from "./errors.js";
import type { ExprEvaluator } from "./expr-evaluator.js";

export function evalAttrDict(ev: ExprEvaluator, e: PyExpr, what: string): Record<string, AttrValue> {
  if (e.kind !== "Dict") fail(`${what} expects a dictionary, as in {"key": value}`, e.pos);
  const out: Record<string, AttrValue> = {};
  e.keys.forEach((k, i) => {
    if (k.kind !== "String") fail(`${what}: keys must be string literals`, k.pos);
    out[k.value] = evalAttrValue(ev, e.values[i]!);
  });
  return out;
}

export function evalAttrValue(ev: ExprEvaluator, e: PyExpr): AttrValue {
  switch (e.kind) {
    case "String":
      return e.value;
    case "Number":
      return e.value;
    case "Constant":
      if (e.value === null) fail("None is not an attribute value", e.pos);
      return e.value;
    case "UnaryOp":
      if (e.op === "-" && e.operand.kind === "Number") return -e.operand.value;
      break;
    case "List":
    case "Tuple":
      return e.elts.map((x) => evalAttrValue(ev, x));
    case "Dict":
      return evalAttrDict(ev, e, "a nested dictionary");
    case "Call":
      // T.bool(True) is how TVM prints boolean attributes such as tir.noalias.
      if (
        e.func.kind === "Attribute" &&
        e.func.attr === "bool" &&
        e.func.value.kind === "Name" &&
        e.func.value.id === "T" &&
        e.args.length === 1 &&
        e.args[0]!.kind === "Constant" &&
        typeof e.args[0]!.value === "boolean"
      ) {
        return e.args[0]!.value;
      }
      break;
    default:
      break;
  }
  return ev.prim(e);
}
