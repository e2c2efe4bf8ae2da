/**
 * Generic traversal of expressions and statements.
 *
 * `IRVisitor` walks every node; `IRMutator` rebuilds the tree bottom-up and returns the very same
 * object wherever nothing below changed, so unchanged subtrees are shared and `===` tells a pass
 * whether it did anything. Passes override the `visit*` methods of the nodes they care about and
 * call `super` to keep the default recursion.
 */
import type { Buffer } from "./buffer.js";
import type { BufferLoad, PrimExpr, Var } from "./expr.js";
import type { Block, BlockRealize, BufferRegion, BufferStore, For, IterVar, MatchBufferRegion, Range, Stmt } from "./stmt.js";

function mapArray<T>(xs: readonly T[], f: (x: T) => T): readonly T[] {
  let out: T[] | undefined;
  for (let i = 0; i < xs.length; i++) {
    const y = f(xs[i]!);
    if (out === undefined && y !== xs[i]) out = xs.slice(0, i);
    if (out !== undefined) out.push(y);
  }
  return out ?? xs;
}

export { mapArray };

export class IRVisitor {
  visitExpr(e: PrimExpr): void {
    switch (e.kind) {
      case "IntImm":
      case "FloatImm":
      case "StringImm":
        return;
      case "Var":
        return this.visitVar(e);
      case "Binary":
        this.visitExpr(e.a);
        this.visitExpr(e.b);
        return;
      case "Not":
        return this.visitExpr(e.a);
      case "Select":
        this.visitExpr(e.condition);
        this.visitExpr(e.trueValue);
        this.visitExpr(e.falseValue);
        return;
      case "Cast":
        return this.visitExpr(e.value);
      case "BufferLoad":
        return this.visitBufferLoad(e);
      case "Ramp":
        this.visitExpr(e.base);
        this.visitExpr(e.stride);
        return;
      case "Broadcast":
        return this.visitExpr(e.value);
      case "Let":
        this.visitExpr(e.value);
        this.visitExpr(e.body);
        return;
      case "Call":
        for (const a of e.args) this.visitExpr(a);
        return;
    }
  }

  visitVar(_v: Var): void {}

  visitBufferLoad(e: BufferLoad): void {
    for (const i of e.indices) this.visitExpr(i);
    if (e.predicate !== undefined) this.visitExpr(e.predicate);
  }

  visitStmt(s: Stmt): void {
    switch (s.kind) {
      case "BufferStore":
        return this.visitBufferStore(s);
      case "SeqStmt":
        for (const c of s.seq) this.visitStmt(c);
        return;
      case "IfThenElse":
        this.visitExpr(s.condition);
        this.visitStmt(s.thenCase);
        if (s.elseCase) this.visitStmt(s.elseCase);
        return;
      case "For":
        return this.visitFor(s);
      case "While":
        this.visitExpr(s.condition);
        this.visitStmt(s.body);
        return;
      case "Evaluate":
        return this.visitExpr(s.value);
      case "LetStmt":
        this.visitExpr(s.value);
        this.visitStmt(s.body);
        return;
      case "Allocate":
      case "DeclBuffer":
        this.visitStmt(s.body);
        return;
      case "AttrStmt":
        this.visitExpr(s.value);
        this.visitStmt(s.body);
        return;
      case "BlockRealize":
        return this.visitBlockRealize(s);
    }
  }

  visitBufferStore(s: BufferStore): void {
    this.visitExpr(s.value);
    for (const i of s.indices) this.visitExpr(i);
    if (s.predicate !== undefined) this.visitExpr(s.predicate);
  }

  visitFor(s: For): void {
    this.visitExpr(s.min);
    this.visitExpr(s.extent);
    if (s.step !== undefined) this.visitExpr(s.step);
    this.visitStmt(s.body);
  }

  visitBlockRealize(s: BlockRealize): void {
    for (const v of s.iterValues) this.visitExpr(v);
    this.visitExpr(s.predicate);
    this.visitBlock(s.block);
  }

  visitBlock(b: Block): void {
    for (const iv of b.iterVars) {
      this.visitExpr(iv.dom.min);
      this.visitExpr(iv.dom.extent);
    }
    for (const r of b.reads) this.visitRegion(r);
    for (const r of b.writes) this.visitRegion(r);
    for (const m of b.matchBuffers) this.visitRegion(m.source);
    if (b.init) this.visitStmt(b.init);
    this.visitStmt(b.body);
  }

  visitRegion(r: BufferRegion): void {
    for (const rg of r.region) {
      this.visitExpr(rg.min);
      this.visitExpr(rg.extent);
    }
  }
}

/**
 * Rebuilt nodes are written out field by field rather than spread (`{ ...e, a }`): spreading nodes
 * of many shapes is a slow generic copy in V8, and the mutators run over every node of a kernel.
 */
export class IRMutator {
  /** Maps every buffer reference (loads, stores, regions, allocations). Identity by default. */
  mapBuffer(b: Buffer): Buffer {
    return b;
  }

  visitExpr(e: PrimExpr): PrimExpr {
    switch (e.kind) {
      case "IntImm":
      case "FloatImm":
      case "StringImm":
        return e;
      case "Var":
        return this.visitVar(e);
      case "Binary": {
        const a = this.visitExpr(e.a);
        const b = this.visitExpr(e.b);
        return a === e.a && b === e.b ? e : { kind: "Binary", op: e.op, dtype: e.dtype, a, b };
      }
      case "Not": {
        const a = this.visitExpr(e.a);
        return a === e.a ? e : { kind: "Not", dtype: e.dtype, a };
      }
      case "Select": {
        const condition = this.visitExpr(e.condition);
        const trueValue = this.visitExpr(e.trueValue);
        const falseValue = this.visitExpr(e.falseValue);
        return condition === e.condition && trueValue === e.trueValue && falseValue === e.falseValue
          ? e
          : { kind: "Select", dtype: e.dtype, condition, trueValue, falseValue };
      }
      case "Cast": {
        const value = this.visitExpr(e.value);
        return value === e.value ? e : { kind: "Cast", dtype: e.dtype, value };
      }
      case "BufferLoad":
        return this.visitBufferLoad(e);
      case "Ramp": {
        const base = this.visitExpr(e.base);
        const stride = this.visitExpr(e.stride);
        return base === e.base && stride === e.stride ? e : { kind: "Ramp", dtype: e.dtype, base, stride, lanes: e.lanes };
      }
      case "Broadcast": {
        const value = this.visitExpr(e.value);
        return value === e.value ? e : { kind: "Broadcast", dtype: e.dtype, value, lanes: e.lanes };
      }
      case "Let": {
        const value = this.visitExpr(e.value);
        const body = this.visitExpr(e.body);
        return value === e.value && body === e.body ? e : { kind: "Let", dtype: body.dtype, variable: e.variable, value, body };
      }
      case "Call": {
        const args = this.visitExprList(e.args);
        return args === e.args ? e : { kind: "Call", dtype: e.dtype, op: e.op, args };
      }
    }
  }

  visitVar(v: Var): PrimExpr {
    return v;
  }

  /**
   * `mapArray(xs, (x) => this.visitExpr(x))` without a closure per call: loads, stores and
   * bindings are visited by every pass, and the closures were a good part of their garbage.
   */
  protected visitExprList(xs: readonly PrimExpr[]): readonly PrimExpr[] {
    let out: PrimExpr[] | undefined;
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i]!;
      const y = this.visitExpr(x);
      if (out === undefined && y !== x) out = xs.slice(0, i);
      if (out !== undefined) out.push(y);
    }
    return out ?? xs;
  }

  /** `mapArray(xs, (s) => this.visitStmt(s))` without a closure per call. */
  protected visitStmtList(xs: readonly Stmt[]): readonly Stmt[] {
    let out: Stmt[] | undefined;
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i]!;
      const y = this.visitStmt(x);
      if (out === undefined && y !== x) out = xs.slice(0, i);
      if (out !== undefined) out.push(y);
    }
    return out ?? xs;
  }

  visitBufferLoad(e: BufferLoad): PrimExpr {
    const buffer = this.mapBuffer(e.buffer);
    const indices = this.visitExprList(e.indices);
    const predicate = e.predicate === undefined ? undefined : this.visitExpr(e.predicate);
    if (buffer === e.buffer && indices === e.indices && predicate === e.predicate) return e;
    return predicate === undefined
      ? { kind: "BufferLoad", dtype: e.dtype, buffer, indices }
      : { kind: "BufferLoad", dtype: e.dtype, buffer, indices, predicate };
  }

  visitStmt(s: Stmt): Stmt {
    switch (s.kind) {
      case "BufferStore":
        return this.visitBufferStore(s);
      case "SeqStmt": {
        const stmts = this.visitStmtList(s.seq);
        return stmts === s.seq ? s : { kind: "SeqStmt", seq: stmts };
      }
      case "IfThenElse": {
        const condition = this.visitExpr(s.condition);
        const thenCase = this.visitStmt(s.thenCase);
        const elseCase = s.elseCase ? this.visitStmt(s.elseCase) : undefined;
        return condition === s.condition && thenCase === s.thenCase && elseCase === s.elseCase ? s : { ...s, condition, thenCase, elseCase };
      }
      case "For":
        return this.visitFor(s);
      case "While": {
        const condition = this.visitExpr(s.condition);
        const body = this.visitStmt(s.body);
        return condition === s.condition && body === s.body ? s : { ...s, condition, body };
      }
      case "Evaluate": {
        const value = this.visitExpr(s.value);
        return value === s.value ? s : { ...s, value };
      }
      case "LetStmt": {
        const value = this.visitExpr(s.value);
        const body = this.visitStmt(s.body);
        return value === s.value && body === s.body ? s : { ...s, value, body };
      }
      case "Allocate":
      case "DeclBuffer": {
        const buffer = this.mapBuffer(s.buffer);
        const body = this.visitStmt(s.body);
        return buffer === s.buffer && body === s.body ? s : { ...s, buffer, body };
      }
      case "AttrStmt": {
        const value = this.visitExpr(s.value);
        const body = this.visitStmt(s.body);
        return value === s.value && body === s.body ? s : { ...s, value, body };
      }
      case "BlockRealize":
        return this.visitBlockRealize(s);
    }
  }

  visitBufferStore(s: BufferStore): Stmt {
    const buffer = this.mapBuffer(s.buffer);
    const value = this.visitExpr(s.value);
    const indices = this.visitExprList(s.indices);
    const predicate = s.predicate === undefined ? undefined : this.visitExpr(s.predicate);
    if (buffer === s.buffer && value === s.value && indices === s.indices && predicate === s.predicate) return s;
    return predicate === undefined ? { kind: "BufferStore", buffer, value, indices } : { kind: "BufferStore", buffer, value, indices, predicate };
  }

  visitFor(s: For): Stmt {
    const min = this.visitExpr(s.min);
    const extent = this.visitExpr(s.extent);
    const step = s.step === undefined ? undefined : this.visitExpr(s.step);
    const body = this.visitStmt(s.body);
    if (min === s.min && extent === s.extent && step === s.step && body === s.body) return s;
    return step === undefined ? { ...s, min, extent, body } : { ...s, min, extent, step, body };
  }

  visitBlockRealize(s: BlockRealize): Stmt {
    const iterValues = this.visitExprList(s.iterValues);
    const predicate = this.visitExpr(s.predicate);
    const block = this.visitBlock(s.block);
    return iterValues === s.iterValues && predicate === s.predicate && block === s.block ? s : { ...s, iterValues, predicate, block };
  }

  visitBlock(b: Block): Block {
    const iterVars = mapArray(b.iterVars, (iv) => this.visitIterVar(iv));
    const reads = mapArray(b.reads, (r) => this.visitRegion(r));
    const writes = mapArray(b.writes, (r) => this.visitRegion(r));
    const allocBuffers = mapArray(b.allocBuffers, (x) => this.mapBuffer(x));
    const matchBuffers = mapArray(b.matchBuffers, (m) => this.visitMatchBuffer(m));
    const init = b.init ? this.visitStmt(b.init) : undefined;
    const body = this.visitStmt(b.body);
    return iterVars === b.iterVars &&
      reads === b.reads &&
      writes === b.writes &&
      allocBuffers === b.allocBuffers &&
      matchBuffers === b.matchBuffers &&
      init === b.init &&
      body === b.body
      ? b
      : { ...b, iterVars, reads, writes, allocBuffers, matchBuffers, init, body };
  }

  visitIterVar(iv: IterVar): IterVar {
    const dom = this.visitRange(iv.dom);
    return dom === iv.dom ? iv : { ...iv, dom };
  }

  visitRange(r: Range): Range {
    const min = this.visitExpr(r.min);
    const extent = this.visitExpr(r.extent);
    return min === r.min && extent === r.extent ? r : { min, extent };
  }

  visitRegion(r: BufferRegion): BufferRegion {
    const buffer = this.mapBuffer(r.buffer);
    const region = mapArray(r.region, (x) => this.visitRange(x));
    return buffer === r.buffer && region === r.region ? r : { buffer, region };
  }

  visitMatchBuffer(m: MatchBufferRegion): MatchBufferRegion {
    const source = this.visitRegion(m.source);
    return source === m.source ? m : { ...m, source };
  }
}

/** Post-order walker behind `forEachExpr` (one class, so call sites stay monomorphic). */
class ExprWalker extends IRVisitor {
  constructor(private readonly f: (e: PrimExpr) => void) {
    super();
  }
  override visitExpr(e: PrimExpr): void {
    super.visitExpr(e);
    this.f(e);
  }
}

/** Calls `f` on every expression node (post-order) in an expression or statement tree. */
export function forEachExpr(root: PrimExpr | Stmt, f: (e: PrimExpr) => void): void {
  const v = new ExprWalker(f);
  if (isStmt(root)) v.visitStmt(root);
  else v.visitExpr(root);
}

/**
 * Calls `f` on every statement (pre-order), blocks' `init` and body included. When `f` returns
 * `false`, the statement's children are skipped (e.g. to stop at nested blocks). Expressions hold
 * no statements, so they are not walked.
 */
export function forEachStmt(root: Stmt, f: (s: Stmt) => void | boolean): void {
  if (f(root) === false) return;
  switch (root.kind) {
    case "SeqStmt":
      for (const c of root.seq) forEachStmt(c, f);
      return;
    case "IfThenElse":
      forEachStmt(root.thenCase, f);
      if (root.elseCase) forEachStmt(root.elseCase, f);
      return;
    case "For":
    case "While":
    case "LetStmt":
    case "Allocate":
    case "DeclBuffer":
    case "AttrStmt":
      forEachStmt(root.body, f);
      return;
    case "BlockRealize":
      if (root.block.init) forEachStmt(root.block.init, f);
      forEachStmt(root.block.body, f);
      return;
    case "BufferStore":
    case "Evaluate":
      return;
  }
}

/**
 * Calls `visit` on every block realize under `root` with the loops around it, outermost first:
 * the loops of enclosing blocks included, or with `withinScope` only those inside the nearest
 * enclosing block (TVM's `GetLoops` stops at the scope block). When `visit` returns `false`, the
 * block's init and body are not walked (e.g. to stay in one block scope).
 */
export function forEachBlockRealize(
  root: Stmt,
  visit: (realize: BlockRealize, loops: readonly For[]) => void | boolean,
  opts: { readonly withinScope?: boolean } = {},
): void {
  const walk = (s: Stmt, loops: readonly For[]): void => {
    switch (s.kind) {
      case "For":
        walk(s.body, [...loops, s]);
        return;
      case "BlockRealize":
        if (visit(s, loops) === false) return;
        {
          const inner = opts.withinScope === true ? [] : loops;
          if (s.block.init) walk(s.block.init, inner);
          walk(s.block.body, inner);
        }
        return;
      case "SeqStmt":
        for (const c of s.seq) walk(c, loops);
        return;
      case "IfThenElse":
        walk(s.thenCase, loops);
        if (s.elseCase) walk(s.elseCase, loops);
        return;
      case "While":
      case "LetStmt":
      case "Allocate":
      case "DeclBuffer":
      case "AttrStmt":
        walk(s.body, loops);
        return;
      case "BufferStore":
      case "Evaluate":
        return;
    }
  };
  walk(root, []);
}

/** The `kind` of every statement node. */
export const STMT_KINDS: ReadonlySet<string> = new Set([
  "BufferStore",
  "SeqStmt",
  "IfThenElse",
  "For",
  "While",
  "Evaluate",
  "LetStmt",
  "Allocate",
  "DeclBuffer",
  "AttrStmt",
  "BlockRealize",
]);

export function isStmt(node: PrimExpr | Stmt): node is Stmt {
  return STMT_KINDS.has(node.kind);
}

/** Finds a variable satisfying a predicate, stopping at the first one. */
class VarFinder extends IRVisitor {
  found = false;
  constructor(private readonly pred: (v: Var) => boolean) {
    super();
  }
  override visitExpr(e: PrimExpr): void {
    if (!this.found) super.visitExpr(e);
  }
  override visitVar(v: Var): void {
    if (this.pred(v)) this.found = true;
  }
  override visitStmt(s: Stmt): void {
    if (!this.found) super.visitStmt(s);
  }
}

/** Does the tree use variable `v` (or any var for which `pred` holds)? */
export function usesVar(root: PrimExpr | Stmt, pred: (v: Var) => boolean): boolean {
  const finder = new VarFinder(pred);
  if (isStmt(root)) finder.visitStmt(root);
  else finder.visitExpr(root);
  return finder.found;
}

/** Replaces variables. `map` returns the replacement or `undefined` to keep a variable. */
export class Substituter extends IRMutator {
  constructor(private readonly map: (v: Var) => PrimExpr | undefined) {
    super();
  }
  override visitVar(v: Var): PrimExpr {
    return this.map(v) ?? v;
  }
}

function toLookup(map: ReadonlyMap<Var, PrimExpr> | ((v: Var) => PrimExpr | undefined)): (v: Var) => PrimExpr | undefined {
  return typeof map === "function" ? map : (v) => map.get(v);
}

export function substitute(e: PrimExpr, map: ReadonlyMap<Var, PrimExpr> | ((v: Var) => PrimExpr | undefined)): PrimExpr {
  return new Substituter(toLookup(map)).visitExpr(e);
}

export function substituteStmt(s: Stmt, map: ReadonlyMap<Var, PrimExpr> | ((v: Var) => PrimExpr | undefined)): Stmt {
  return new Substituter(toLookup(map)).visitStmt(s);
}
