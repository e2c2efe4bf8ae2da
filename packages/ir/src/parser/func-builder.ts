/**
 * One `@T.prim_func def name(params): body` to a PrimFunc: parameters, the body, and the
 * implicit root block TVM's parser adds around bodies that contain blocks or allocations.
 */
import { forEachStmt } from "../functor.js";
import { IRError } from "../errors.js";
import { type Var, variable } from "../expr.js";
import { type PrimFunc, primFunc } from "../func.js";
import { type Stmt, block, blockRealize } from "../stmt.js";
import { type Param, type PyExpr, type PyStmt, dottedName } from "./ast.js";
import { bindArguments } from "./arguments.js";
import { BodyBuilder } from "./body-builder.js";
import { parseBufferDecl } from "./buffer-decl.js";
import { type FunctionState, newFunctionState } from "./build-state.js";
import { fail } from "./errors.js";
import { ExprEvaluator } from "./expr-evaluator.js";
import { type Binding, ScopeStack } from "./scope.js";
import { type DialectOption, resolveDialect } from "./dialect.js";
import type { ModuleFunctions } from "./module-functions.js";

type FunctionDef = Extract<PyStmt, { kind: "FunctionDef" }>;

const SCALAR_DTYPE = /^(u?int|float|bool)\d*(x\d+)?$/;
/** TVMScript's other spellings of parameter annotations (`T.buffer` is `T.Buffer`, `T.boolean` is `T.bool`). */
const PARAM_SPELLINGS: Readonly<Record<string, string>> = { "T.buffer": "T.Buffer", "T.boolean": "T.bool" };

/** Whether `e` is the `@T.prim_func` decorator, bare or called (`@T.prim_func(private=True)`). */
export function isPrimFuncDecorator(e: PyExpr): boolean {
  const target = e.kind === "Call" ? e.func : e;
  return dottedName(target) === "T.prim_func";
}

export function buildPrimFunc(
  def: FunctionDef,
  moduleNames: ReadonlyMap<string, Binding>,
  dialect: DialectOption = "auto",
  module?: ModuleFunctions,
): PrimFunc {
  if (!def.decorators.some(isPrimFuncDecorator)) {
    fail(`missing @T.prim_func decorator on function "${def.name}"`, def.pos);
  }
  const scopes = new ScopeStack();
  for (const [name, binding] of moduleNames) scopes.define(name, binding);
  const ev = new ExprEvaluator(scopes);
  ev.module = module;
  const fn = newFunctionState(resolveDialect(def, dialect));
  const params = buildParams(def.params, ev, fn);
  const builder = new BodyBuilder(ev, fn);
  let body = builder.body(def.body);
  refusePrivateGlobalSymbol(def, fn);
  if (needsRootBlock(body, fn)) {
    body = blockRealize([], true, block({ name: "root", body, allocBuffers: fn.rootAllocs }));
  }
  return primFunc(params, fn.bufferMap, body, fn.attrs);
}

/** As TVM: `@T.prim_func(private=True)` has no global symbol, so `T.func_attr` cannot give it one. */
function refusePrivateGlobalSymbol(def: FunctionDef, fn: FunctionState): void {
  const decorator = def.decorators.find((d) => d.kind === "Call" && isPrimFuncDecorator(d));
  const isPrivate = decorator?.kind === "Call" && decorator.keywords.some((k) => k.name === "private" && k.value.kind === "Constant" && k.value.value === true);
  if (isPrivate && Object.hasOwn(fn.attrs, "global_symbol")) {
    fail(`function "${def.name}" is private (private=True) but T.func_attr gives it a global_symbol`, decorator.pos);
  }
}

function buildParams(params: readonly Param[], ev: ExprEvaluator, fn: FunctionState): Var[] {
  ev.paramDTypes = scalarParamDTypes(params);
  const seen = new Set<string>();
  return params.map((p) => {
    if (seen.has(p.name)) fail(`duplicate parameter name "${p.name}"`, p.pos);
    seen.add(p.name);
    try {
      return buildParam(p, ev, fn);
    } catch (err) {
      if (err instanceof IRError) fail(err.message, p.pos);
      throw err;
    }
  });
}

function buildParam(p: Param, ev: ExprEvaluator, fn: FunctionState): Var {
  const ann = p.annotation;
  if (ann === undefined) {
    fail(`parameter "${p.name}" needs a type annotation such as T.Buffer(...), T.handle or T.int32`, p.pos);
  }
  const written = dottedName(ann.kind === "Call" ? ann.func : ann);
  const callee = written !== undefined && Object.hasOwn(PARAM_SPELLINGS, written) ? PARAM_SPELLINGS[written] : written;
  if (callee === "T.Buffer") {
    if (ann.kind !== "Call") fail('T.Buffer needs a shape, as in T.Buffer((16,), "float32")', ann.pos);
    const handle = variable(p.name, "handle");
    const { buffer } = parseBufferDecl(ev, ann, "T.Buffer", p.name, { symbolicShape: true });
    fn.bufferMap.set(handle, buffer);
    ev.scopes.define(p.name, { kind: "buffer", buffer });
    return handle;
  }
  if (callee === "T.handle") {
    // `T.handle("float32", "global")`: a typed pointer; the IR keeps the handle only.
    if (ann.kind === "Call") bindArguments(ann, "T.handle", ["dtype", "storage_scope"]);
    const handle = variable(p.name, "handle");
    ev.scopes.define(p.name, { kind: "handle", var: handle });
    return handle;
  }
  const dt = callee?.startsWith("T.") ? callee.slice(2) : "";
  if (SCALAR_DTYPE.test(dt) && (ann.kind !== "Call" || ann.args.length === 0)) {
    // A scalar that a buffer shape already mentioned (`A: T.Buffer((n,)), n: T.int32`) is that variable.
    const existing = ev.scopes.lookup(p.name);
    if (existing?.kind === "var" && existing.var.dtype === dt) return existing.var;
    try {
      const v = variable(p.name, dt);
      ev.scopes.define(p.name, { kind: "var", var: v });
      return v;
    } catch {
      fail(`unknown dtype "${dt}"`, ann.pos);
    }
  }
  fail(`unsupported annotation for parameter "${p.name}": expected T.Buffer(...), T.handle or a scalar type such as T.int32`, ann.pos);
}

/** `n: T.int64` → n: int64, for the scalar parameters (a shape may name one before it is declared). */
function scalarParamDTypes(params: readonly Param[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of params) {
    const ann = p.annotation;
    if (ann === undefined || (ann.kind === "Call" && ann.args.length > 0)) continue;
    const dt = dottedName(ann.kind === "Call" ? ann.func : ann)?.replace(/^T\./, "") ?? "";
    if (SCALAR_DTYPE.test(dt)) out.set(p.name, dt);
  }
  return out;
}

function needsRootBlock(body: Stmt, fn: FunctionState): boolean {
  if (isExplicitRoot(body)) return false;
  if (fn.rootAllocs.length > 0) return true;
  let found = false;
  forEachStmt(body, (s) => {
    if (s.kind === "BlockRealize") found = true;
  });
  return found;
}

/** `with T.block("root"):` written out as the whole body. */
function isExplicitRoot(body: Stmt): boolean {
  return body.kind === "BlockRealize" && body.block.name === "root" && body.block.iterVars.length === 0;
}
