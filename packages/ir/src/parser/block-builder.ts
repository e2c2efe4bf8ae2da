/**
 * `with T.block("name"):` and the statements only meaningful inside one: block iterators
 * (`T.axis.*`), `T.reads`/`T.writes` (inferred when absent), `T.where`, `T.block_attr`.
 */
import { isIntegral } from "../dtype.js";
import { type PrimExpr, variable } from "../expr.js";
import { type AttrValue, type IterType, type Range, type Stmt, block, blockRealize, iterVar, rangeFromExtent } from "../stmt.js";
import { type PyExpr, type PyStmt, dottedName } from "./ast.js";
import { completeBlockRegions } from "../analysis/index.js";
import { bindArguments } from "./arguments.js";
import { evalAttrDict } from "./attr-values.js";
import type { BodyBuilder } from "./body-builder.js";
import { type StmtResult, newBlockState } from "./build-state.js";
import { type SourcePos, fail } from "./errors.js";
import { rangeFromBounds } from "./extent.js";
import { isLiteral, literalToExpr } from "./literal.js";
import { parseRegionList } from "./regions.js";

type CallNode = Extract<PyExpr, { kind: "Call" }>;

const AXIS_KINDS: Record<string, IterType> = {
  spatial: "spatial",
  S: "spatial",
  reduce: "reduce",
  R: "reduce",
  scan: "scan",
  opaque: "opaque",
};

const REMAP_KINDS: Record<string, IterType> = { S: "spatial", R: "reduce" };

const BLOCK_ONLY_CALLS = new Set(["T.reads", "T.writes", "T.where", "T.block_attr", "T.sblock_attr"]);

export function isBlockOnlyCall(callee: string): boolean {
  return BLOCK_ONLY_CALLS.has(callee);
}

export function buildBlock(b: BodyBuilder, call: CallNode, body: readonly PyStmt[]): StmtResult {
  const args = bindArguments(call, dottedName(call.func)!, ["name_hint", "no_realize"]);
  const nameNode = args.get("name_hint");
  const name = nameNode === undefined ? "" : b.ev.string(nameNode, "a block name");
  const state = newBlockState(name, call.pos);
  b.blocks.push(state);
  let stmt: Stmt;
  try {
    stmt = b.nested(body);
  } finally {
    b.blocks.pop();
  }
  const blk = block({
    name,
    iterVars: state.iterVars,
    reads: state.reads ?? [],
    writes: state.writes ?? [],
    init: state.init,
    body: stmt,
    allocBuffers: state.allocBuffers,
    matchBuffers: state.matchBuffers,
    annotations: state.annotations,
  });
  // As TVM's ScriptComplete: only the lists the script left out are inferred.
  const missing = { reads: state.reads === undefined, writes: state.writes === undefined };
  const regions = completeBlockRegions(blk, missing, { bufferOfData: (v) => b.scopes.bufferOfData(v) });
  return blockRealize(state.bindings, state.predicate ?? true, regions);
}

/** `T.reads(...)`, `T.writes(...)`, `T.where(...)`, `T.block_attr({...})`. */
export function blockOnlyStatement(b: BodyBuilder, callee: string, call: CallNode): StmtResult {
  const state = b.currentBlock;
  if (state === undefined) fail(`${callee} is only allowed inside a block`, call.pos);
  if (call.keywords.length > 0) fail(`${callee} takes no keyword arguments`, call.keywords[0]!.pos);
  switch (callee) {
    case "T.reads":
      if (state.reads !== undefined) fail(`block "${state.name}" already has T.reads`, call.pos);
      state.reads = parseRegionList(b.ev, call.args);
      return undefined;
    case "T.writes":
      if (state.writes !== undefined) fail(`block "${state.name}" already has T.writes`, call.pos);
      state.writes = parseRegionList(b.ev, call.args);
      return undefined;
    case "T.where":
      if (call.args.length !== 1) fail(`T.where takes 1 argument, got ${call.args.length}`, call.pos);
      if (state.predicate !== undefined) fail(`block "${state.name}" already has T.where`, call.pos);
      state.predicate = b.ev.condition(call.args[0]!, "the T.where predicate");
      return undefined;
    default:
      if (call.args.length !== 1) fail(`${callee} takes 1 argument, got ${call.args.length}`, call.pos);
      mergeAnnotations(state.annotations, evalAttrDict(b.ev, call.args[0]!, callee), (key) =>
        fail(`block "${state.name}" already has a different value for the annotation "${key}"`, call.pos),
      );
      return undefined;
  }
}

/** Adds `extra` to `into` as TVM does: nested dictionaries merge, another value for a key is a conflict. */
function mergeAnnotations(into: Record<string, AttrValue>, extra: Record<string, AttrValue>, conflict: (key: string) => never): void {
  for (const [key, value] of Object.entries(extra)) {
    const previous = into[key];
    if (previous === undefined) into[key] = value;
    else if (isPlainDict(previous) && isPlainDict(value)) {
      const merged = { ...previous };
      mergeAnnotations(merged, value, conflict);
      into[key] = merged;
    } else if (JSON.stringify(previous) !== JSON.stringify(value)) conflict(key);
  }
}

function isPlainDict(v: AttrValue): v is Record<string, AttrValue> {
  return typeof v === "object" && !Array.isArray(v) && !("kind" in v && typeof v.kind === "string");
}

/** `vi = T.axis.spatial(dom, binding)`: `dom` is an extent or a `(lo, hi)` pair. */
export function parseAxisAssign(b: BodyBuilder, name: string, callee: string, call: CallNode): StmtResult {
  const kindName = callee.slice("T.axis.".length);
  const iterType = AXIS_KINDS[kindName];
  if (iterType === undefined) fail(`unknown TVMScript function "${callee}"`, call.pos);
  const state = b.currentBlock;
  if (state === undefined) fail(`${callee} is only allowed inside a block`, call.pos);
  const args = bindArguments(call, callee, ["dom", "binding", "dtype"], 2);
  const bindingValue = b.ev.value(args.get("binding")!);
  const dtypeNode = args.get("dtype");
  const dt = dtypeNode !== undefined ? b.ev.string(dtypeNode, "a dtype") : isLiteral(bindingValue) ? "int32" : bindingValue.dtype;
  const binding = isLiteral(bindingValue) ? literalToExpr(bindingValue, dt) : bindingValue;
  if (!isIntegral(binding.dtype)) fail(`the binding of a block iterator must be an integer, got ${binding.dtype}`, args.get("binding")!.pos);
  const dom = parseDomain(b, args.get("dom")!, dt);
  addIterator(b, name, dom, iterType, binding, call.pos);
  return undefined;
}

function parseDomain(b: BodyBuilder, e: PyExpr, dt: string): Range {
  if (e.kind === "Tuple" || e.kind === "List") {
    if (e.elts.length !== 2) fail("an iterator domain must be an extent or a (min, max) pair", e.pos);
    return rangeFromBounds(b.ev.prim(e.elts[0]!, dt), b.ev.prim(e.elts[1]!, dt));
  }
  const extent = b.ev.prim(e, dt);
  if (!isIntegral(extent.dtype)) fail(`an iterator extent must be an integer, got ${extent.dtype}`, e.pos);
  return rangeFromExtent(extent);
}

function addIterator(b: BodyBuilder, name: string, dom: Range, iterType: IterType, binding: PrimExpr, pos: SourcePos): void {
  const state = b.currentBlock!;
  if (state.iterVars.some((iv) => iv.var.name === name)) fail(`block "${state.name}" already has an iterator named "${name}"`, pos);
  const v = variable(name, binding.dtype);
  state.iterVars.push(iterVar(v, dom, iterType));
  state.bindings.push(binding);
  b.scopes.define(name, { kind: "var", var: v });
}

/** `vi, vj, vk = T.axis.remap("SSR", [i, j, k])`: iterators over the domains of the given loops. */
/** `vi, vj = T.axis.remap("SR", [i, j])`, or `vi = T.axis.remap("S", [i])` for one letter. */
export function parseRemapAssign(b: BodyBuilder, target: Extract<PyExpr, { kind: "Tuple" | "Name" }>, call: CallNode): StmtResult {
  const names = target.kind === "Tuple" ? target.elts : [target];
  const state = b.currentBlock;
  if (state === undefined) fail("T.axis.remap is only allowed inside a block", call.pos);
  const args = bindArguments(call, "T.axis.remap", ["kinds", "bindings"], 2);
  const kindsNode = args.get("kinds")!;
  const kinds = b.ev.string(kindsNode, "the iterator kinds of T.axis.remap");
  const bindingsNode = args.get("bindings")!;
  const bindings = bindingsNode.kind === "List" || bindingsNode.kind === "Tuple" ? bindingsNode.elts : [bindingsNode];
  if (kinds.length !== bindings.length) {
    fail(`T.axis.remap: the kind string "${kinds}" has ${kinds.length} letters but ${bindings.length} loop variables were given`, kindsNode.pos);
  }
  if (names.length !== bindings.length) {
    fail(`T.axis.remap binds ${bindings.length} iterators but ${names.length} name${names.length === 1 ? " is" : "s are"} assigned`, target.pos);
  }
  [...kinds].forEach((letter, i) => {
    const iterType = REMAP_KINDS[letter];
    if (iterType === undefined) fail(`T.axis.remap: unknown iterator kind "${letter}" (expected "S" or "R")`, kindsNode.pos);
    const bindingNode = bindings[i]!;
    const loop = bindingNode.kind === "Name" ? b.scopes.lookup(bindingNode.id) : undefined;
    if (bindingNode.kind === "Name" && loop === undefined) fail(`unknown name "${bindingNode.id}"`, bindingNode.pos);
    if (loop?.kind !== "var" || loop.loopRange === undefined) {
      fail("T.axis.remap binds loop variables only; use T.axis.spatial/reduce for other bindings", bindingNode.pos);
    }
    const targetNode = names[i]!;
    if (targetNode.kind !== "Name") fail("T.axis.remap must be assigned to names", targetNode.pos);
    addIterator(b, targetNode.id, loop.loopRange, iterType, loop.var, targetNode.pos);
  });
  return undefined;
}
