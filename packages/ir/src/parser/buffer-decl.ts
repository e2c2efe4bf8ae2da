/**
 * The buffer-declaring calls — `T.Buffer`, `T.match_buffer`, `T.alloc_buffer`, `T.decl_buffer`,
 * `T.allocate` — share shape/dtype/keyword handling, gathered here.
 */
import { type Buffer, STORAGE_SCOPE_SYNTAX, declBuffer, isStorageScope } from "../buffer.js";
import { isHandle } from "../dtype.js";
import { type PrimExpr, type Var, variable } from "../expr.js";
import type { BufferRegion } from "../stmt.js";
import type { PyExpr, PyStmt } from "./ast.js";
import { parsePython } from "./py-parser.js";
import { bindArguments } from "./arguments.js";
import { ParseFailure, fail } from "./errors.js";
import type { ExprEvaluator } from "./expr-evaluator.js";
import { dtypeArg } from "./t-functions.js";

type CallNode = Extract<PyExpr, { kind: "Call" }>;

/** Parameters after the leading ones each function has of its own (`T.match_buffer`'s source). */
const BUFFER_PARAMS = ["shape", "dtype", "data", "strides", "elem_offset", "scope", "align", "offset_factor", "buffer_type", "axis_separators"];

export interface BufferDeclOptions {
  /** Unknown names in the shape become new int32 variables (symbolic shapes of parameters). */
  readonly symbolicShape?: boolean;
  /** Leading parameters before `shape`, e.g. `param` for `T.match_buffer(param, shape, ...)`. */
  readonly leading?: readonly string[];
  /**
   * An omitted `elem_offset` with a non-zero `offset_factor` is a fresh variable `<name>_elem_offset`,
   * as TVM's BufferDecl makes it (match_buffers in today's dialect; LowerMatchBuffer binds a block's).
   */
  readonly freshOffset?: boolean;
  /** Without `shape`, the buffer takes this region's extents and its buffer's dtype (TVM's match_buffer of a region). */
  readonly shapeOf?: BufferRegion;
}

export interface BufferDecl {
  readonly buffer: Buffer;
  /** The arguments, for callers that read the leading ones. */
  readonly args: Map<string, PyExpr>;
}

export function parseBufferDecl(ev: ExprEvaluator, call: CallNode, fnName: string, bufferName: string, opts: BufferDeclOptions = {}): BufferDecl {
  const leading = opts.leading ?? [];
  const args = bindArguments(call, fnName, [...leading, ...BUFFER_PARAMS], leading.length + (opts.shapeOf === undefined ? 1 : 0));
  const shapeNode = args.get("shape");
  const region = shapeNode === undefined ? opts.shapeOf : undefined;
  const shape = region !== undefined ? region.region.map((r) => r.extent) : evalShape(ev, shapeNode!, opts.symbolicShape ?? false);
  const dtypeNode = args.get("dtype");
  const dt = region !== undefined ? region.buffer.dtype : dtypeNode === undefined ? "float32" : dtypeArg(ev, dtypeNode);
  if (dt === "void") fail(`buffer ${bufferName} cannot hold elements of dtype void`, dtypeNode!.pos);
  const scopeNode = args.get("scope");
  // TVM reads an empty scope as "global".
  const scopeText = scopeNode === undefined ? "global" : ev.string(scopeNode, "a storage scope");
  const scope = scopeText === "" ? "global" : scopeText;
  if (!isStorageScope(scope)) fail(`unknown storage scope "${scope}" (expected ${STORAGE_SCOPE_SYNTAX})`, scopeNode!.pos);
  const stridesNode = args.get("strides");
  const strides = stridesNode === undefined || stridesNode.kind === "Constant" ? [] : evalShape(ev, stridesNode, opts.symbolicShape ?? false);
  const offsetNode = args.get("elem_offset");
  const elemOffset =
    offsetNode === undefined || offsetNode.kind === "Constant"
      ? undefined
      : withAutoDefine(ev, opts.symbolicShape ?? false, () => ev.index(offsetNode, "elem_offset"));
  const alignNode = args.get("align");
  const align = alignNode === undefined ? undefined : ev.constInt(alignNode, "align");
  const factorNode = args.get("offset_factor");
  const offsetFactor = factorNode === undefined ? undefined : ev.constInt(factorNode, "offset_factor");
  const offset =
    elemOffset ??
    (opts.freshOffset === true && offsetNode === undefined && (offsetFactor ?? 0) !== 0
      ? variable(`${bufferName}_elem_offset`, shape[0]?.dtype ?? "int32")
      : undefined);
  const dataNode = args.get("data");
  const data = dataNode === undefined || dataNode.kind === "Constant" ? undefined : dataVar(ev, dataNode);
  const buffer = declBuffer(bufferName, shape, dt, {
    strides,
    ...(offset !== undefined ? { elemOffset: offset } : {}),
    scope,
    ...(data !== undefined ? { data } : {}),
    ...(align !== undefined && align > 0 ? { dataAlignment: align } : {}),
    ...(offsetFactor !== undefined ? { offsetFactor } : {}),
  });
  return { buffer, args };
}

/** A shape: a tuple or list of integer expressions, or one expression for a 1-D buffer. */
export function evalShape(ev: ExprEvaluator, e: PyExpr, symbolic: boolean): PrimExpr[] {
  const items = e.kind === "Tuple" || e.kind === "List" ? ev.spliced(e.elts) : (ev.tupleItems(e) ?? [e]);
  return withAutoDefine(ev, symbolic, () => items.map((d) => ev.index(symbolic && d.kind === "String" ? stringDimension(d) : d, "a shape dimension")));
}

/**
 * A parameter's shape dimension written as a string (`T.Buffer(("n + 1",), ...)`): the expression
 * it spells, whose names may be parameters declared later (as in TVM). Positions are the string's.
 */
function stringDimension(d: Extract<PyExpr, { kind: "String" }>): PyExpr {
  let stmts: PyStmt[];
  try {
    stmts = parsePython(`${d.value}\n`);
  } catch (err) {
    if (err instanceof ParseFailure) fail(`shape dimension "${d.value}": ${err.reason}`, d.pos);
    throw err;
  }
  const [s] = stmts;
  if (stmts.length !== 1 || s?.kind !== "ExprStmt") fail(`shape dimension "${d.value}" is not one expression`, d.pos);
  return atPosition(s.value, d.pos);
}

/** `e` with every node placed at `pos`, so that errors point at the string that spelled it. */
function atPosition(e: PyExpr, pos: PyExpr["pos"]): PyExpr {
  const place = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(place);
    if (typeof x !== "object" || x === null) return x;
    return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, k === "pos" || k === "opPos" ? pos : place(v)]));
  };
  return place(e) as PyExpr;
}

function withAutoDefine<T>(ev: ExprEvaluator, on: boolean, f: () => T): T {
  const saved = ev.autoDefineNames;
  ev.autoDefineNames = on;
  try {
    return f();
  } finally {
    ev.autoDefineNames = saved;
  }
}

function dataVar(ev: ExprEvaluator, e: PyExpr): Var {
  const v = ev.prim(e);
  if (v.kind !== "Var" || !isHandle(v.dtype)) fail("data= must be a handle variable, such as B.data", e.pos);
  return v;
}
