/**
 * Scoped statements of lowered code, written flat (`x = T.launch_thread(...)` followed by the
 * statements it scopes) or as `with ... as x:`: `T.allocate`, `T.decl_buffer`, `T.launch_thread`,
 * `T.attr` and `T.LetStmt`; plus `T.Buffer` views and `T.env_thread` declarations.
 */
import { type Buffer, declBuffer } from "../buffer.js";
import { type PrimExpr, type Var, boolImm, constant, stringImm, variable } from "../expr.js";
import { evalAttrDict } from "./attr-values.js";
import { type AttrValue, DEVICE_ENTRY_KEY, THREAD_ID_KEY, type Stmt, allocate, attrStmt, declBufferStmt, letStmt } from "../stmt.js";
import type { PyExpr, PyStmt } from "./ast.js";
import { bindArguments } from "./arguments.js";
import { evalShape, parseBufferDecl } from "./buffer-decl.js";
import type { BodyBuilder } from "./body-builder.js";
import type { StmtResult } from "./build-state.js";
import { checkIntrinsicCall } from "../intrinsics.js";
import { fail } from "./errors.js";
import { sameExpr } from "./extent.js";

import { dtypeArg } from "./t-functions.js";

type CallNode = Extract<PyExpr, { kind: "Call" }>;

/** A scoped form: how it binds its name (if any) and how it wraps the statements it scopes. */
interface ScopedForm {
  readonly bind?: (name: string) => void;
  readonly wrap: (body: Stmt) => Stmt;
}

/** `name = T.<form>(...)` for the forms handled here, or null when `callee` is not one of them. */
export function loweredAssign(b: BodyBuilder, name: string, callee: string, call: CallNode): StmtResult | null {
  if (callee === "T.Buffer") {
    b.scopes.define(name, { kind: "buffer", buffer: bufferView(b, name, call) });
    return undefined;
  }
  if (callee === "T.env_thread") {
    const [tag] = bindArguments(call, callee, ["thread_tag"], 1).values();
    b.scopes.define(name, { kind: "var", var: variable(b.ev.string(tag!, "a thread tag"), "int32") });
    return undefined;
  }
  const form = scopedForm(b, callee, call, name);
  if (form === undefined) return null;
  form.bind?.(name);
  return { wrap: form.wrap };
}

/** A bare `T.launch_thread(v, n)` or `T.attr(...)` statement, scoping what follows. */
export function loweredCallStatement(b: BodyBuilder, callee: string | undefined, call: CallNode): StmtResult | undefined {
  if (callee !== "T.launch_thread" && callee !== "T.attr" && callee !== "T.device_entry") return undefined;
  const form = scopedForm(b, callee, call, undefined)!;
  if (form.bind !== undefined) fail(`the result of ${callee} must be assigned to a name`, call.pos);
  return { wrap: form.wrap };
}

/** `with T.<form>(...) [as name]:` for the forms handled here, or undefined. */
export function loweredWith(
  b: BodyBuilder,
  callee: string | undefined,
  call: CallNode,
  asTarget: PyExpr | undefined,
  body: readonly PyStmt[],
): StmtResult | undefined {
  if (callee === undefined) return undefined;
  if (asTarget !== undefined && asTarget.kind !== "Name") fail('expected a single name after "as"', asTarget.pos);
  const name = asTarget?.id;
  const form = scopedForm(b, callee, call, name);
  if (form === undefined) return undefined;
  if (form.bind !== undefined && name === undefined) fail(`with ${callee}(...) needs a name: add "as <name>"`, call.pos);
  if (form.bind === undefined && name !== undefined) fail(`with ${callee}(...) does not define a name`, asTarget!.pos);
  return b.scopes.within(() => {
    if (name !== undefined) form.bind?.(name);
    return form.wrap(b.nested(body));
  });
}

function scopedForm(b: BodyBuilder, callee: string, call: CallNode, name: string | undefined): ScopedForm | undefined {
  switch (callee) {
    case "T.allocate":
      return allocateForm(b, call, name ?? "buffer");
    case "T.decl_buffer":
      return declBufferForm(b, call, name ?? "buffer");
    case "T.alloc_buffer":
      return b.fn.dialect === "tvm" ? flatAllocForm(b, call, name ?? "buffer") : undefined;
    case "T.launch_thread":
      return launchThreadForm(b, call);
    case "T.attr":
      return attrForm(b, call);
    case "T.device_entry":
      return deviceEntryForm(call);
    case "T.thread_id":
      return threadIdForm(b, call);
    case "T.LetStmt":
      return letForm(b, call);
    default:
      return undefined;
  }
}

/** `p = T.allocate([extents], dtype, scope)`: `p` names the storage pointer. */
function allocateForm(b: BodyBuilder, call: CallNode, name: string): ScopedForm {
  const args = bindArguments(call, "T.allocate", ["extents", "dtype", "scope", "condition", "annotations"], 2);
  const extents = evalShape(b.ev, args.get("extents")!, false);
  const dt = dtypeArg(b.ev, args.get("dtype")!);
  const scopeNode = args.get("scope");
  const scope = scopeNode === undefined ? "global" : b.ev.string(scopeNode, "a storage scope");
  const buffer = declBufferChecked(name, extents, dt, scope, scopeNode ?? call);
  return {
    bind: (n) => {
      b.fn.allocations.set(buffer.data, buffer);
      b.scopes.define(n, { kind: "var", var: buffer.data });
    },
    wrap: (body) => allocate(buffer, body),
  };
}

function declBufferChecked(name: string, extents: PrimExpr[], dt: string, scope: string, at: PyExpr): Buffer {
  try {
    return declBuffer(name, extents, dt, { scope: scope as Buffer["scope"] });
  } catch {
    fail(`unknown storage scope "${scope}"`, at.pos);
  }
}

/** `T.decl_buffer(...)`: a view of existing storage with `data=`, else storage and view at once. */
function declBufferForm(b: BodyBuilder, written: CallNode, name: string): ScopedForm {
  const pointer = dataPointer(b, written, name);
  const call = pointer === undefined ? written : { ...written, keywords: written.keywords.map((k) => (k.name === "data" ? { ...k, value: pointer.name } : k)) };
  const { buffer, args } = parseBufferDecl(b.ev, call, "T.decl_buffer", name);
  const ownsStorage = args.get("data") === undefined;
  const declare = (body: Stmt): Stmt => (ownsStorage ? allocate(buffer, declBufferStmt(buffer, body)) : declBufferStmt(buffer, body));
  return {
    bind: (n) => b.scopes.define(n, { kind: "buffer", buffer }),
    wrap: (body) => (pointer === undefined ? declare(body) : letStmt(pointer.var, pointer.value, declare(body))),
  };
}

/**
 * `data=<pointer expression>` (`T.address_of(A[16])`), which TVM's DeclBuffer takes as is: our
 * buffers point through a variable, so the pointer is let-bound to `<name>_data` first.
 */
function dataPointer(b: BodyBuilder, call: CallNode, name: string): { var: Var; value: PrimExpr; name: PyExpr } | undefined {
  const given = call.keywords.find((k) => k.name === "data")?.value;
  if (given === undefined || given.kind === "Name" || given.kind === "Attribute") return undefined;
  const value = b.ev.prim(given);
  if (value.kind === "Var" || value.dtype !== "handle") return undefined;
  const pointerName = `${name}_data`;
  const v = variable(pointerName, "handle");
  b.scopes.define(pointerName, { kind: "var", var: v });
  return { var: v, value, name: { kind: "Name", id: pointerName, pos: given.pos } };
}

/**
 * Today's `X = T.alloc_buffer(...)` (dialect "tvm"): storage and buffer declared at once for the statements after
 * it (Allocate + DeclBuffer, what `T.decl_buffer` without data= builds). Its `annotations=` become
 * `T.attr(X.data, key, value)` scopes just inside, which the "tvm" printer folds back.
 */
function flatAllocForm(b: BodyBuilder, call: CallNode, name: string): ScopedForm {
  const annNode = call.keywords.find((k) => k.name === "annotations")?.value;
  const declCall = { ...call, keywords: call.keywords.filter((k) => k.name !== "annotations") };
  const { buffer } = parseBufferDecl(b.ev, declCall, "T.alloc_buffer", name);
  const annotations = annNode === undefined ? {} : evalAttrDict(b.ev, annNode, "T.alloc_buffer annotations");
  const attrs = Object.entries(annotations).map(([key, value]) => ({ key, value: annotationExpr(key, value, annNode!) }));
  return {
    bind: (n) => b.scopes.define(n, { kind: "buffer", buffer }),
    wrap: (rest) =>
      allocate(
        buffer,
        declBufferStmt(
          buffer,
          attrs.reduceRight<Stmt>((inner, a) => attrStmt(a.key, buffer.data, a.value, inner), rest),
        ),
      ),
  };
}

/**
 * An allocation annotation as the value of an AttrStmt: a scalar, or a list of them as
 * `T.tvm_tuple(...)` (TVM's builtin for tuple-valued attributes; `[]` for `buffer_allocated_addr`).
 */
function annotationExpr(key: string, value: AttrValue, at: PyExpr): PrimExpr {
  if (Array.isArray(value))
    return checkIntrinsicCall(
      "tvm_tuple",
      value.map((item: AttrValue) => annotationScalar(key, item, at)),
    );
  return annotationScalar(key, value, at);
}

function annotationScalar(key: string, value: AttrValue, at: PyExpr): PrimExpr {
  if (typeof value === "string") return stringImm(value);
  if (typeof value === "boolean") return boolImm(value);
  if (typeof value === "number") return constant(value, Number.isInteger(value) ? "int32" : "float32");
  if (!Array.isArray(value) && "kind" in value && typeof value.kind === "string") return value as PrimExpr;
  return fail(`T.alloc_buffer annotation "${key}": only scalars and lists of scalars are supported`, at.pos);
}

/** `T.launch_thread("threadIdx.x", n)` (a new thread variable) or `T.launch_thread(v, n)`. */
function launchThreadForm(b: BodyBuilder, call: CallNode): ScopedForm {
  const args = bindArguments(call, "T.launch_thread", ["thread", "extent"], 2);
  const threadNode = args.get("thread")!;
  const extent = b.ev.index(args.get("extent")!, "a thread extent");
  let threadVar: Var;
  let defines = false;
  if (threadNode.kind === "String") {
    threadVar = variable(threadNode.value, extent.dtype);
    defines = true;
  } else {
    const v = b.ev.prim(threadNode);
    if (v.kind !== "Var") fail("T.launch_thread expects a thread tag string or a thread variable", threadNode.pos);
    threadVar = v;
  }
  const key = threadVar.name.startsWith("vthread") ? "virtual_thread" : "thread_extent";
  const wrap = (body: Stmt): Stmt => attrStmt(key, threadVar, extent, body);
  return defines ? { bind: (n) => b.scopes.define(n, { kind: "var", var: threadVar }), wrap } : { wrap };
}

/** `T.attr(node, "key", value)`. */
function attrForm(b: BodyBuilder, call: CallNode): ScopedForm {
  const args = bindArguments(call, "T.attr", ["node", "attr_key", "value"], 3);
  const nodeExpr = args.get("node")!;
  let node: Var | undefined;
  // None, or an integer as TVM writes for attributes without a subject (`T.attr(0, "async_scope", 1)`).
  const noSubject = (nodeExpr.kind === "Constant" && nodeExpr.value === null) || (nodeExpr.kind === "Number" && !nodeExpr.isFloat);
  let subject: PrimExpr | undefined;
  if (!noSubject) {
    const v = b.ev.prim(nodeExpr);
    if (v.kind === "Var") node = v;
    else subject = v;
  }
  const key = b.ev.string(args.get("attr_key")!, "an attribute key");
  const value = b.ev.prim(args.get("value")!);
  return { wrap: (body) => attrStmt(key, node, value, body, subject) };
}

/** `T.device_entry()`: what follows is the device region, as TVM's AttrStmt("tirx.device_entry", True). */
function deviceEntryForm(call: CallNode): ScopedForm {
  if (call.args.length > 0 || call.keywords.length > 0) fail("T.device_entry takes no arguments", call.pos);
  return { wrap: (body) => attrStmt(DEVICE_ENTRY_KEY, undefined, boolImm(true), body) };
}

/** `tx = T.thread_id([n], dtype="int32")`: a thread index over `n` threads of the CTA, defined for what follows. */
function threadIdForm(b: BodyBuilder, call: CallNode): ScopedForm {
  const args = bindArguments(call, "T.thread_id", ["extents", "dtype"], 1);
  const extentsNode = args.get("extents")!;
  const extents = evalShape(b.ev, extentsNode, false);
  if (extents.length !== 1) fail(`T.thread_id: expected one extent, got ${extents.length} (only one thread index per statement is supported)`, extentsNode.pos);
  const dtypeNode = args.get("dtype");
  const dt = dtypeNode === undefined ? "int32" : dtypeArg(b.ev, dtypeNode);
  if (dt !== "int32" && dt !== "uint32") fail(`T.thread_id: dtype must be "int32" or "uint32", got "${dt}"`, dtypeNode!.pos);
  let index: Var | undefined;
  return {
    bind: (n) => {
      index = variable(n, dt);
      b.scopes.define(n, { kind: "var", var: index });
    },
    wrap: (body) => attrStmt(THREAD_ID_KEY, index, extents[0]!, body),
  };
}

/** `with T.LetStmt(value) as x:` (a new variable) or `with T.LetStmt(value, var=x):`. */
function letForm(b: BodyBuilder, call: CallNode): ScopedForm {
  const args = bindArguments(call, "T.LetStmt", ["value", "type_annotation", "var"], 1);
  const varNode = args.get("var");
  if (varNode !== undefined) {
    const v = b.ev.prim(varNode);
    if (v.kind !== "Var") fail("var= of T.LetStmt must be a variable", varNode.pos);
    const value = b.ev.prim(args.get("value")!, v.dtype);
    return { wrap: (body) => letStmt(v, value, body) };
  }
  const value = b.ev.prim(args.get("value")!);
  let letVar: Var | undefined;
  return {
    bind: (n) => {
      letVar = variable(n, value.dtype);
      b.scopes.define(n, { kind: "var", var: letVar });
    },
    wrap: (body) => letStmt(letVar!, value, body),
  };
}

/**
 * `Y = T.Buffer(shape, dtype, data=p, ...)` inside a body. A view describing exactly the buffer a
 * `T.allocate` created (how the printer shows an allocation's buffer) resolves to that buffer.
 */
function bufferView(b: BodyBuilder, name: string, call: CallNode): Buffer {
  const { buffer } = parseBufferDecl(b.ev, call, "T.Buffer", name);
  const allocated = b.fn.allocations.get(buffer.data);
  if (allocated !== undefined && sameLayout(allocated, buffer)) return allocated;
  return buffer;
}

function sameLayout(a: Buffer, b: Buffer): boolean {
  const sameList = (x: readonly PrimExpr[], y: readonly PrimExpr[]): boolean => x.length === y.length && x.every((e, i) => sameExpr(e, y[i]!));
  return (
    a.dtype === b.dtype &&
    a.scope === b.scope &&
    sameList(a.shape, b.shape) &&
    sameList(a.strides, b.strides) &&
    sameExpr(a.elemOffset, b.elemOffset) &&
    a.dataAlignment === b.dataAlignment &&
    a.offsetFactor === b.offsetFactor
  );
}
