/**
 * An imperative builder for TensorIR that mirrors TVMScript, for tests and users:
 *
 * ```ts
 * const f = buildPrimFunc("vadd", ({ param, grid, block, axis, store, load }) => {
 *   const A = param("A", [128]);
 *   const B = param("B", [128]);
 *   const C = param("C", [128]);
 *   grid([128], (i) => {
 *     block("C", () => {
 *       const [vi] = axis.remap("S", [i]);
 *       store(C, [vi], add(load(A, [vi]), load(B, [vi])));
 *     });
 *   });
 * });
 * ```
 *
 * Loop variables take the names of the callback's parameters (`(i, j) => …` gives loops `i`,
 * `j`); block iterators default to `v` + the bound loop's name (`vi`), as TVMScript users write.
 * Reads/writes a block does not declare are inferred; the root block is inserted as the parser does.
 */
import { type Buffer, type BufferOptions, type StorageScope, declBuffer } from "../buffer.js";
import { IRError } from "../errors.js";
import { type ExprLike, type PrimExpr, type Var, and, bufferLoad, sub, toExpr, variable } from "../expr.js";
import { type PrimFunc, primFunc } from "../func.js";
import {
  type Annotations,
  type AttrValue,
  type Block,
  type BufferRegion,
  type ForKind,
  type IterType,
  type Range,
  type Stmt,
  block as makeBlock,
  blockRealize,
  bufferStore,
  evaluate,
  forLoop,
  ifThenElseStmt,
  iterVar,
  letStmt,
  range,
  rangeFromExtent,
  seq,
} from "../stmt.js";
import { type BlockFrame, type Frame, blockFrame, stmtFrame } from "./frames.js";
import { parameterList } from "./param-names.js";
import { type DeclaredAccess, completeAccessRegions } from "./regions.js";
import { withRootBlock } from "./root-block.js";

/** A block iterator's domain: an extent, a TVMScript-style `[begin, end)` pair, or a Range. */
export type AxisDomain = ExprLike | readonly [ExprLike, ExprLike] | Range;

export interface LoopOptions {
  /** Loop variable name; defaults to the callback's parameter name. */
  readonly name?: string;
  /** Start of the loop (default 0); the loop runs over `[min, min + extent)`. */
  readonly min?: ExprLike;
  readonly annotations?: Annotations;
}

export interface BuildOptions {
  /** Extra function attributes (`global_symbol` defaults to the function name). */
  readonly attrs?: Readonly<Record<string, AttrValue>>;
  /** Like `@T.prim_func(private=True)`: no `global_symbol` attribute. */
  readonly private?: boolean;
}

const REMAP_KINDS: Readonly<Record<string, IterType>> = { S: "spatial", R: "reduce" };

/** Block iterator declarations, TVMScript's `T.axis`. */
export interface BlockAxes {
  spatial(dom: AxisDomain, binding: ExprLike, name?: string): Var;
  reduce(dom: AxisDomain, binding: ExprLike, name?: string): Var;
  scan(dom: AxisDomain, binding: ExprLike, name?: string): Var;
  opaque(dom: AxisDomain, binding: ExprLike, name?: string): Var;
  /** `T.axis.remap("SSR", [i, j, k])`: one iterator per loop variable, domain = the loop's range. */
  remap(kinds: string, loopVars: readonly Var[], names?: readonly string[]): Var[];
}

export class PrimFuncBuilder {
  private readonly params: Var[] = [];
  private readonly bufferMap = new Map<Var, Buffer>();
  private readonly rootAllocs: Buffer[] = [];
  private readonly attrs: Record<string, AttrValue> = {};
  private readonly frames: Frame[] = [stmtFrame()];
  /** Ranges of the loops currently open, for `axis.remap`. */
  private readonly loopRanges = new Map<Var, Range>();
  /** What each built block declared, for the root block, whose regions are never inferred. */
  private readonly declaredAccess = new WeakMap<Block, DeclaredAccess>();

  readonly axis: BlockAxes = {
    spatial: (dom, binding, name) => this.declareIter("spatial", dom, binding, name),
    reduce: (dom, binding, name) => this.declareIter("reduce", dom, binding, name),
    scan: (dom, binding, name) => this.declareIter("scan", dom, binding, name),
    opaque: (dom, binding, name) => this.declareIter("opaque", dom, binding, name),
    remap: (kinds, loopVars, names) => this.remap(kinds, loopVars, names),
  };

  // ---------------------------------------------------------------------------------------------
  // Function signature

  /** A buffer parameter, `A: T.Buffer(shape, dtype)`. */
  readonly param = (name: string, shape: readonly ExprLike[], dtype = "float32", opts: BufferOptions = {}): Buffer => {
    this.requireFunctionLevel("param");
    const handle = variable(name, "handle");
    const buffer = declBuffer(name, shape, dtype, opts);
    this.params.push(handle);
    this.bufferMap.set(handle, buffer);
    return buffer;
  };

  /** A scalar parameter, `n: T.int32`. */
  readonly scalarParam = (name: string, dtype = "int32"): Var => {
    this.requireFunctionLevel("scalarParam");
    const v = variable(name, dtype);
    this.params.push(v);
    return v;
  };

  readonly funcAttr = (attrs: Readonly<Record<string, AttrValue>>): void => {
    Object.assign(this.attrs, attrs);
  };

  /** `T.alloc_buffer`: owned by the innermost enclosing block, else by the root block. */
  readonly allocBuffer = (name: string, shape: readonly ExprLike[], dtype = "float32", scope: StorageScope = "global"): Buffer => {
    const buffer = declBuffer(name, shape, dtype, { scope });
    const owner = this.innermostBlock();
    (owner === undefined ? this.rootAllocs : owner.allocBuffers).push(buffer);
    return buffer;
  };

  // ---------------------------------------------------------------------------------------------
  // Loops

  /** `for i, j in T.grid(…)`: nested serial loops named after the callback's parameters. */
  readonly grid = (extents: readonly ExprLike[], body: (...loopVars: Var[]) => void, names?: readonly string[]): void => {
    if (extents.length === 0) throw new IRError("grid: at least one extent is required");
    const loopNames = names ?? this.callbackNames(body, extents.length, "grid");
    if (loopNames.length !== extents.length) {
      throw new IRError(`grid: ${loopNames.length} names given for ${extents.length} loops`);
    }
    const vars = loopNames.map((n) => variable(n, "int32"));
    const open = (level: number): void => {
      if (level === vars.length) {
        body(...vars);
        return;
      }
      this.loop(vars[level]!, extents[level]!, "serial", {}, undefined, () => open(level + 1));
    };
    open(0);
  };

  readonly serial = (extent: ExprLike, body: (v: Var) => void, opts: LoopOptions = {}): void => this.singleLoop("serial", extent, body, opts);
  readonly parallel = (extent: ExprLike, body: (v: Var) => void, opts: LoopOptions = {}): void => this.singleLoop("parallel", extent, body, opts);
  readonly vectorized = (extent: ExprLike, body: (v: Var) => void, opts: LoopOptions = {}): void => this.singleLoop("vectorized", extent, body, opts);
  readonly unrolled = (extent: ExprLike, body: (v: Var) => void, opts: LoopOptions = {}): void => this.singleLoop("unrolled", extent, body, opts);

  /** `for tx in T.thread_binding(extent, thread="threadIdx.x")`. */
  readonly threadBinding = (extent: ExprLike, threadTag: string, body: (v: Var) => void, opts: LoopOptions = {}): void =>
    this.singleLoop("thread_binding", extent, body, opts, threadTag);

  // ---------------------------------------------------------------------------------------------
  // Blocks

  /** `with T.block(name):` — declare iterators with `axis`, then the body. */
  readonly block = (name: string, body: () => void): void => {
    const frame = blockFrame(name);
    this.frames.push(frame);
    try {
      body();
    } finally {
      this.frames.pop();
    }
    let blk = makeBlock({
      name,
      iterVars: frame.iterVars,
      init: frame.init,
      body: this.bodyOf(frame.stmts),
      allocBuffers: frame.allocBuffers,
      annotations: frame.annotations,
    });
    const declared = { reads: frame.reads, writes: frame.writes };
    blk = completeAccessRegions(blk, declared);
    this.declaredAccess.set(blk, declared);
    this.emit(blockRealize(frame.bindings, frame.predicate ?? true, blk));
  };

  /** `with T.init():` — the reduction initialisation of the current block. */
  readonly init = (body: () => void): void => {
    const frame = this.currentBlock("init");
    if (frame.init !== undefined) throw new IRError(`block ${frame.name}: init is given twice`);
    frame.init = this.collect(body);
  };

  /** `T.where(cond)`: the block instance runs only where `cond` holds (repeated calls are and-ed). */
  readonly where = (cond: ExprLike): void => {
    const frame = this.currentBlock("where");
    const c = toExpr(cond);
    frame.predicate = frame.predicate === undefined ? c : and(frame.predicate, c);
  };

  readonly reads = (...regions: BufferRegion[]): void => {
    this.currentBlock("reads").reads = regions;
  };

  readonly writes = (...regions: BufferRegion[]): void => {
    this.currentBlock("writes").writes = regions;
  };

  /** `T.block_attr({...})`. */
  readonly blockAttr = (annotations: Annotations): void => {
    const frame = this.currentBlock("blockAttr");
    frame.annotations = { ...frame.annotations, ...annotations };
  };

  // ---------------------------------------------------------------------------------------------
  // Statements and expressions

  /** `buffer[indices] = value`. */
  readonly store = (buffer: Buffer, indices: readonly ExprLike[], value: ExprLike): void => {
    this.emit(bufferStore(buffer, value, indices));
  };

  /** `buffer[indices]` as an expression. */
  readonly load = (buffer: Buffer, indices: readonly ExprLike[]): PrimExpr => bufferLoad(buffer, indices);

  /** `if cond: … else: …`. */
  readonly ifThen = (cond: ExprLike, thenBody: () => void, elseBody?: () => void): void => {
    const thenStmt = this.collect(thenBody);
    const elseStmt = elseBody === undefined ? undefined : this.collect(elseBody);
    this.emit(ifThenElseStmt(cond, thenStmt, elseStmt));
  };

  /** `name = value` followed by the statements of `body`, which receives the bound variable. */
  readonly letVar = (name: string, value: ExprLike, body: (v: Var) => void): void => {
    const val = toExpr(value);
    const v = variable(name, val.dtype);
    this.emit(
      letStmt(
        v,
        val,
        this.collect(() => body(v)),
      ),
    );
  };

  readonly evaluate = (value: ExprLike): void => {
    this.emit(evaluate(value));
  };

  /** Appends a statement built elsewhere. */
  readonly emit = (stmt: Stmt): void => {
    this.frames[this.frames.length - 1]!.stmts.push(stmt);
  };

  // ---------------------------------------------------------------------------------------------
  // Finishing

  finish(name: string, opts: BuildOptions = {}): PrimFunc {
    if (this.frames.length !== 1) throw new IRError(`function ${name}: a loop or block was left open`);
    const body = this.asRoot(withRootBlock(this.bodyOf(this.frames[0]!.stmts), this.rootAllocs));
    const attrs: Record<string, AttrValue> = opts.private === true ? {} : { global_symbol: name };
    Object.assign(attrs, this.attrs, opts.attrs ?? {});
    return primFunc(this.params, this.bufferMap, body, attrs);
  }

  // ---------------------------------------------------------------------------------------------
  // Internals

  /**
   * A top-level block without iterators is the function's root block (TVM's parser treats a
   * hand-written one the same way): its reads/writes are only what the author declared.
   */
  private asRoot(body: Stmt): Stmt {
    if (body.kind !== "BlockRealize" || body.block.iterVars.length !== 0) return body;
    const declared = this.declaredAccess.get(body.block);
    if (declared === undefined) return body;
    const blk = { ...body.block, reads: declared.reads ?? [], writes: declared.writes ?? [] };
    return { ...body, block: blk };
  }

  private singleLoop(kind: ForKind, extent: ExprLike, body: (v: Var) => void, opts: LoopOptions, threadTag?: string): void {
    const name = opts.name ?? this.callbackNames(body, 1, kind)[0]!;
    const v = variable(name, "int32");
    this.loop(v, extent, kind, opts, threadTag, () => body(v));
  }

  private loop(v: Var, extent: ExprLike, kind: ForKind, opts: LoopOptions, threadTag: string | undefined, body: () => void): void {
    const min = opts.min ?? 0;
    this.loopRanges.set(v, range(min, extent));
    let inner: Stmt;
    try {
      inner = this.collect(body);
    } finally {
      this.loopRanges.delete(v);
    }
    this.emit(
      forLoop(v, extent, inner, {
        min,
        kind,
        ...(threadTag === undefined ? {} : { threadTag }),
        ...(opts.annotations === undefined ? {} : { annotations: opts.annotations }),
      }),
    );
  }

  /** Runs `body` in a fresh statement frame and returns what it emitted. */
  private collect(body: () => void): Stmt {
    const frame = stmtFrame();
    this.frames.push(frame);
    try {
      body();
    } finally {
      this.frames.pop();
    }
    return this.bodyOf(frame.stmts);
  }

  private bodyOf(stmts: readonly Stmt[]): Stmt {
    return stmts.length === 0 ? evaluate(0) : seq(stmts);
  }

  private callbackNames(fn: (...args: never[]) => unknown, count: number, what: string): string[] {
    const { names, rest } = parameterList(fn);
    if (names !== undefined && !rest && names.length > 0 && names.length !== count) {
      throw new IRError(`${what}: the callback takes ${names.length} loop variables but ${count} loops are created`);
    }
    if (names !== undefined && names.length === count) return [...names];
    return Array.from({ length: count }, (_, i) => (count === 1 ? "i" : `i${i}`));
  }

  private declareIter(iterType: IterType, dom: AxisDomain, bindingLike: ExprLike, name?: string): Var {
    const frame = this.currentBlock(`axis.${iterType}`);
    if (frame.stmts.length > 0) {
      throw new IRError(`block ${frame.name}: declare iterators before the block's statements`);
    }
    const binding = toExpr(bindingLike, "int32");
    const iterName = name ?? (binding.kind === "Var" ? `v${binding.name}` : `v${frame.iterVars.length}`);
    const v = variable(iterName, binding.dtype);
    frame.iterVars.push(iterVar(v, toRange(dom), iterType));
    frame.bindings.push(binding);
    return v;
  }

  private remap(kinds: string, loopVars: readonly Var[], names?: readonly string[]): Var[] {
    if (kinds.length !== loopVars.length) {
      throw new IRError(`axis.remap: "${kinds}" has ${kinds.length} kinds but ${loopVars.length} loop variables are given`);
    }
    if (names !== undefined && names.length !== loopVars.length) {
      throw new IRError(`axis.remap: ${names.length} names given for ${loopVars.length} iterators`);
    }
    return loopVars.map((lv, i) => {
      const iterType = REMAP_KINDS[kinds[i]!];
      if (iterType === undefined) throw new IRError(`axis.remap: unknown iterator kind "${kinds[i]}" (use S or R)`);
      const dom = this.loopRanges.get(lv);
      if (dom === undefined) {
        throw new IRError(`axis.remap: ${lv.name} is not the variable of an enclosing loop`);
      }
      return this.declareIter(iterType, dom, lv, names?.[i]);
    });
  }

  private currentBlock(what: string): BlockFrame {
    const top = this.frames[this.frames.length - 1]!;
    if (top.kind !== "block") throw new IRError(`${what} must be called directly inside a block`);
    return top;
  }

  private innermostBlock(): BlockFrame | undefined {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const f = this.frames[i]!;
      if (f.kind === "block") return f;
    }
    return undefined;
  }

  private requireFunctionLevel(what: string): void {
    if (this.frames.length !== 1) throw new IRError(`${what} must be called at function level, outside loops and blocks`);
  }
}

function toRange(dom: AxisDomain): Range {
  if (Array.isArray(dom)) {
    const [begin, end] = dom as readonly [ExprLike, ExprLike];
    if (typeof begin === "number" && typeof end === "number") return range(begin, end - begin);
    const b = toExpr(begin, "int32");
    return range(b, sub(end, b));
  }
  if (isRange(dom)) return dom;
  return rangeFromExtent(dom as ExprLike);
}

function isRange(x: unknown): x is Range {
  return typeof x === "object" && x !== null && !("kind" in x) && "min" in x && "extent" in x;
}

/**
 * Builds a PrimFunc with the builder. The callback receives the builder; destructure the
 * methods you need (they are bound).
 */
export function buildPrimFunc(name: string, body: (b: PrimFuncBuilder) => void, opts: BuildOptions = {}): PrimFunc {
  const b = new PrimFuncBuilder();
  body(b);
  return b.finish(name, opts);
}
