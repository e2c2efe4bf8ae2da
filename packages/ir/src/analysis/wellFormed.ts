/**
 * A structural verifier for PrimFuncs: every variable is defined before use and in scope, each
 * variable is defined once, block iter vars stay inside their block, block bindings only use
 * outer variables. Block names need not be unique: TVM allows duplicates (cache_read of one buffer
 * for two consumers makes two `A_shared` blocks); lookups by name report the ambiguity instead.
 *
 * Scopes: parameters and the variables in parameter buffers' shapes/strides/offsets cover the
 * whole function; loop, let and block iter variables cover their body; a `match_buffer` target may
 * introduce new variables in its shape; `thread_extent` / `virtual_thread` attributes introduce
 * their thread variable. Buffer data (handle) variables of known buffers count as defined.
 */
import type { Buffer } from "../buffer.js";
import { IRError } from "../errors.js";
import type { PrimExpr, Var } from "../expr.js";
import { forEachExpr, forEachStmt } from "../functor.js";
import type { PrimFunc } from "../func.js";
import type { Block, BlockRealize, BufferRegion, Stmt } from "../stmt.js";

export class WellFormedError extends IRError {
  override name = "WellFormedError";
}

/** Throws a `WellFormedError` naming the first problem found in `func`. */
export function verifyWellFormed(func: PrimFunc): void {
  new WellFormedChecker(func).run();
}

function varsIn(e: PrimExpr): Var[] {
  const out: Var[] = [];
  forEachExpr(e, (x) => {
    if (x.kind === "Var") out.push(x);
  });
  return out;
}

function bufferFieldVars(b: Buffer): Var[] {
  return [...b.shape, ...b.strides, b.elemOffset].flatMap(varsIn);
}

class WellFormedChecker {
  private readonly inScope = new Set<Var>();
  private readonly everDefined = new Set<Var>();
  /** Every block iter var of the function, with its block's name, to explain misplaced uses. */
  private readonly iterVarOwner = new Map<Var, string>();
  private readonly dataVars = new Set<Var>();
  private where = "the function body";

  constructor(private readonly func: PrimFunc) {}

  run(): void {
    this.prepass();
    for (const p of this.func.params) this.inScope.add(p);
    for (const b of this.func.bufferMap.values()) for (const v of bufferFieldVars(b)) this.inScope.add(v);
    this.stmt(this.func.body);
  }

  private prepass(): void {
    for (const b of this.func.bufferMap.values()) this.dataVars.add(b.data);
    forEachStmt(this.func.body, (s) => {
      if (s.kind === "Allocate" || s.kind === "DeclBuffer") this.dataVars.add(s.buffer.data);
      if (s.kind !== "BlockRealize") return;
      for (const iv of s.block.iterVars) this.iterVarOwner.set(iv.var, s.block.name);
      for (const b of s.block.allocBuffers) this.dataVars.add(b.data);
      for (const m of s.block.matchBuffers) this.dataVars.add(m.buffer.data);
    });
  }

  private fail(message: string): never {
    throw new WellFormedError(`${message} (in ${this.where})`);
  }

  private define(v: Var, what: string): void {
    if (this.everDefined.has(v) || this.inScope.has(v)) this.fail(`${what} ${v.name} is defined twice`);
    this.everDefined.add(v);
    this.inScope.add(v);
  }

  private undefine(v: Var): void {
    this.inScope.delete(v);
  }

  private use(v: Var): void {
    if (this.inScope.has(v) || this.dataVars.has(v)) return;
    const owner = this.iterVarOwner.get(v);
    if (owner !== undefined) this.fail(`iter var ${v.name} of block "${owner}" is used outside its block`);
    this.fail(`variable ${v.name} is used but not defined`);
  }

  private expr(e: PrimExpr): void {
    switch (e.kind) {
      case "Var":
        return this.use(e);
      case "Let":
        this.expr(e.value);
        this.define(e.variable, "let variable");
        this.expr(e.body);
        this.undefine(e.variable);
        return;
      case "Binary":
        this.expr(e.a);
        this.expr(e.b);
        return;
      case "Not":
        return this.expr(e.a);
      case "Select":
        this.expr(e.condition);
        this.expr(e.trueValue);
        this.expr(e.falseValue);
        return;
      case "Cast":
      case "Broadcast":
        return this.expr(e.value);
      case "BufferLoad":
        for (const i of e.indices) this.expr(i);
        return;
      case "Ramp":
        this.expr(e.base);
        this.expr(e.stride);
        return;
      case "Call":
        for (const a of e.args) this.expr(a);
        return;
      default:
        return;
    }
  }

  private stmt(s: Stmt): void {
    switch (s.kind) {
      case "BufferStore":
        this.expr(s.value);
        for (const i of s.indices) this.expr(i);
        return;
      case "SeqStmt":
        for (const c of s.seq) this.stmt(c);
        return;
      case "IfThenElse":
        this.expr(s.condition);
        this.stmt(s.thenCase);
        if (s.elseCase) this.stmt(s.elseCase);
        return;
      case "For":
        this.expr(s.min);
        this.expr(s.extent);
        if (s.step !== undefined) this.expr(s.step);
        this.define(s.loopVar, "loop variable");
        this.stmt(s.body);
        this.undefine(s.loopVar);
        return;
      case "While":
        this.expr(s.condition);
        return this.stmt(s.body);
      case "Evaluate":
        return this.expr(s.value);
      case "LetStmt":
        this.expr(s.value);
        this.define(s.variable, "let variable");
        this.stmt(s.body);
        this.undefine(s.variable);
        return;
      case "Allocate":
      case "DeclBuffer":
        return this.stmt(s.body);
      case "AttrStmt":
        return this.attr(s);
      case "BlockRealize":
        return this.blockRealize(s);
    }
  }

  private attr(s: Stmt & { kind: "AttrStmt" }): void {
    this.expr(s.value);
    const introducesThread = s.node !== undefined && (s.key === "thread_extent" || s.key === "virtual_thread");
    const added = introducesThread && !this.inScope.has(s.node!);
    if (added) this.inScope.add(s.node!);
    this.stmt(s.body);
    if (added) this.inScope.delete(s.node!);
  }

  private blockRealize(s: BlockRealize): void {
    const blk = s.block;
    const outerWhere = this.where;
    this.where = `block "${blk.name}"`;
    const own = new Set(blk.iterVars.map((iv) => iv.var));
    s.iterValues.forEach((value, i) => {
      const selfUse = varsIn(value).find((v) => own.has(v));
      if (selfUse !== undefined) {
        this.fail(`the binding of iter var ${blk.iterVars[i]!.var.name} uses the block's own iter var ${selfUse.name}`);
      }
      this.expr(value);
    });
    this.expr(s.predicate);
    for (const iv of blk.iterVars) {
      this.expr(iv.dom.min);
      this.expr(iv.dom.extent);
    }
    for (const iv of blk.iterVars) this.define(iv.var, "block iter var");
    const matchVars = this.block(blk);
    for (const v of matchVars) this.undefine(v);
    for (const iv of blk.iterVars) this.undefine(iv.var);
    this.where = outerWhere;
  }

  /** Checks a block's contents; returns the variables its match buffers introduced. */
  private block(blk: Block): Var[] {
    const introduced: Var[] = [];
    for (const m of blk.matchBuffers) {
      this.region(m.source);
      for (const v of bufferFieldVars(m.buffer)) {
        if (!this.inScope.has(v)) {
          this.inScope.add(v);
          introduced.push(v);
        }
      }
    }
    for (const r of blk.reads) this.region(r);
    for (const r of blk.writes) this.region(r);
    if (blk.init) this.stmt(blk.init);
    this.stmt(blk.body);
    return introduced;
  }

  private region(r: BufferRegion): void {
    for (const rg of r.region) {
      this.expr(rg.min);
      this.expr(rg.extent);
    }
  }
}
