/**
 * `I.module_attrs({"system_lib_prefix": "modA_"})` inside an `@I.ir_module` class: the module's
 * attributes, constants only (strings, numbers, booleans, and lists and dicts of them).
 */
import type { AttrValue } from "../stmt.js";
import { type PyExpr, dottedName } from "./ast.js";
import { fail } from "./errors.js";

type CallNode = Extract<PyExpr, { kind: "Call" }>;

/** Whether a class-body statement is `I.module_attrs(...)`. */
export function isModuleAttrsCall(e: PyExpr): e is CallNode {
  return e.kind === "Call" && dottedName(e.func) === "I.module_attrs";
}

export function moduleAttrs(call: CallNode): Record<string, AttrValue> {
  if (call.args.length !== 1 || call.keywords.length > 0) fail(`I.module_attrs takes one dictionary, got ${call.args.length} arguments`, call.pos);
  const dict = constantValue(call.args[0]!);
  if (typeof dict !== "object" || Array.isArray(dict)) fail('I.module_attrs expects a dictionary, as in {"key": value}', call.args[0]!.pos);
  return dict as Record<string, AttrValue>;
}

function constantValue(e: PyExpr): AttrValue {
  switch (e.kind) {
    case "String":
    case "Number":
      return e.value;
    case "UnaryOp":
      if (e.op === "-" && e.operand.kind === "Number") return -e.operand.value;
      break;
    case "Constant":
      if (e.value !== null) return e.value;
      break;
    case "Call":
      // T.bool(True), as the printer writes a boolean attribute.
      if (dottedName(e.func) === "T.bool" && e.args.length === 1 && e.args[0]!.kind === "Constant" && e.args[0]!.value !== null) return e.args[0]!.value;
      break;
    case "List":
    case "Tuple":
      return e.elts.map(constantValue);
    case "Dict": {
      const out: Record<string, AttrValue> = {};
      e.keys.forEach((k, i) => {
        if (k.kind !== "String") fail("the keys of I.module_attrs must be strings", k.pos);
        out[k.value] = constantValue(e.values[i]!);
      });
      return out;
    }
    default:
      break;
  }
  return fail("I.module_attrs takes constant values only (strings, numbers, booleans, lists and dictionaries)", e.pos);
}
