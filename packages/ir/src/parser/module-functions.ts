/**
 * Calls between the functions of one `@I.ir_module` class: `Module.subroutine(A.data)` (TVM's call
 * of a GlobalVar). Here a Call whose op is the callee's name behind GLOBAL_CALL_PREFIX, with the
 * callee's return dtype (void when it declares none).
 */
import { type PrimExpr, call } from "../expr.js";
import { type PyExpr, type PyStmt, dottedName } from "./ast.js";

import { GLOBAL_CALL_PREFIX } from "../intrinsics.js";

type FunctionDef = Extract<PyStmt, { kind: "FunctionDef" }>;

/** The functions of the module being parsed: class name and each function's return dtype. */
export interface ModuleFunctions {
  readonly className: string;
  readonly returnDTypes: ReadonlyMap<string, string>;
}

export function moduleFunctions(className: string, defs: readonly FunctionDef[]): ModuleFunctions {
  return { className, returnDTypes: new Map(defs.map((d) => [d.name, returnDType(d.returns)])) };
}

function returnDType(e: PyExpr | undefined): string {
  const name = e === undefined ? undefined : dottedName(e);
  return name?.startsWith("T.") ? name.slice(2) : "void";
}

/** `Cls.fn(args)` (or `cls.fn(args)`) when `fn` is a function of the module; undefined otherwise. */
export function moduleCall(module: ModuleFunctions | undefined, callee: string, args: readonly PrimExpr[]): PrimExpr | undefined {
  const [owner, name, ...rest] = callee.split(".");
  if (module === undefined || rest.length > 0 || name === undefined || (owner !== module.className && owner !== "cls")) return undefined;
  const dt = module.returnDTypes.get(name);
  return dt === undefined ? undefined : call(dt, `${GLOBAL_CALL_PREFIX}${name}`, args);
}
