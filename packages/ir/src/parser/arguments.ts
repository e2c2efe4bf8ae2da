/**
 * Binds the positional and keyword arguments of a call to parameter names, Python-style, so that
 * `T.Buffer((4,), "float16")` and `T.Buffer((4,), dtype="float16")` read the same.
 */
import type { PyExpr } from "./ast.js";
import { fail } from "./errors.js";

type CallNode = Extract<PyExpr, { kind: "Call" }>;

export function bindArguments(call: CallNode, fnName: string, params: readonly string[], required = 0): Map<string, PyExpr> {
  const bound = new Map<string, PyExpr>();
  if (call.args.length > params.length) {
    fail(`${fnName} takes at most ${params.length} positional arguments, got ${call.args.length}`, call.args[params.length]!.pos);
  }
  call.args.forEach((a, i) => bound.set(params[i]!, a));
  for (const kw of call.keywords) {
    if (!params.includes(kw.name)) fail(`${fnName} got an unexpected keyword argument "${kw.name}"`, kw.pos);
    if (bound.has(kw.name)) fail(`${fnName} got multiple values for argument "${kw.name}"`, kw.pos);
    bound.set(kw.name, kw.value);
  }
  for (const p of params.slice(0, required)) {
    if (!bound.has(p)) fail(`${fnName} is missing the argument "${p}"`, call.pos);
  }
  return bound;
}

export function asCall(e: PyExpr): CallNode | undefined {
  return e.kind === "Call" ? e : undefined;
}
