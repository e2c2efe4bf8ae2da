/**
 * TVM's `TensorizeComparator`: walks the block to tensorize (lhs, from the schedule) and the body
 * of an intrinsic's description (rhs) side by side. Variables are matched where they are defined
 * (loops, block iterators); buffers by first use (same dtype and scope). The outer (scope) block's
 * regions fix, per buffer, the base corner where the description's buffer sits inside the actual
 * one (extra leading dimensions must be single elements); every access below must then equal the
 * description's access relative to that corner. The first difference is recorded in words.
 */
import {
  Analyzer,
  type Annotations,
  type Block,
  type BlockRealize,
  type Buffer,
  type BufferRegion,
  type For,
  type IterVar,
  type PrimExpr,
  type Range,
  type Stmt,
  type Var,
  dtypeInfo,
  printExpr,
  sub,
  substitute,
} from "@tessera/ir";

/** Thrown inside the comparator at the first difference; `differences` says what differed, innermost last. */
export class TensorizeMismatch extends Error {
  constructor(
    readonly differences: readonly string[],
    /** The innermost workload loop or block being compared when it failed. */
    readonly at: For | Block | undefined,
  ) {
    super(differences.join("\n"));
  }
}

export class TensorizeComparator {
  /** Description buffer → workload buffer. */
  readonly bufferMap = new Map<Buffer, Buffer>();
  /** Workload buffer → the corner (one index per dimension) where the description's buffer starts. */
  readonly indicesBase = new Map<Buffer, PrimExpr[]>();
  private readonly varMap = new Map<Var, Var>();
  private readonly dataMap = new Map<Var, Var>();
  private readonly analyzer = new Analyzer();
  private isScopeBlock = true;
  private readonly differences: string[] = [];
  private current: For | Block | undefined;

  /** Compares `lhs` (the workload) with `rhs` (the description's body); throws TensorizeMismatch. */
  compare(lhs: BlockRealize, rhs: Stmt): void {
    this.stmt(lhs, rhs);
  }

  private fail(why: string): never {
    this.differences.push(why);
    throw new TensorizeMismatch(this.differences, this.current);
  }

  private stmt(l: Stmt, r: Stmt): void {
    if (l.kind !== r.kind) this.fail(`a ${describeStmt(l)} in the workload where the description has a ${describeStmt(r)}`);
    switch (l.kind) {
      case "For":
        return this.forLoop(l, r as For);
      case "BlockRealize":
        return this.blockRealize(l, r as BlockRealize);
      case "SeqStmt": {
        const rs = (r as typeof l).seq;
        if (l.seq.length !== rs.length) this.fail(`${l.seq.length} statements in the workload where the description has ${rs.length}`);
        return l.seq.forEach((s, i) => this.stmt(s, rs[i]!));
      }
      case "BufferStore": {
        const rs = r as typeof l;
        this.access(l.buffer, l.indices, rs.buffer, rs.indices, "store");
        return this.expr(l.value, rs.value, `the value stored to ${l.buffer.name}`);
      }
      case "Evaluate":
        return this.expr(l.value, (r as typeof l).value, "an evaluated expression");
      case "IfThenElse": {
        const ri = r as typeof l;
        this.expr(l.condition, ri.condition, "an if condition");
        this.stmt(l.thenCase, ri.thenCase);
        if ((l.elseCase === undefined) !== (ri.elseCase === undefined)) this.fail("an if with and an if without an else branch");
        if (l.elseCase !== undefined) this.stmt(l.elseCase, ri.elseCase!);
        return;
      }
      case "LetStmt": {
        const rl = r as typeof l;
        this.expr(l.value, rl.value, `the value of let ${l.variable.name}`);
        this.defineVar(l.variable, rl.variable);
        return this.stmt(l.body, rl.body);
      }
      default:
        this.fail(`a ${describeStmt(l)}, which tensorize does not compare`);
    }
  }

  private forLoop(l: For, r: For): void {
    const outer = this.current;
    this.current = l;
    this.defineVar(l.loopVar, r.loopVar);
    this.expr(l.min, r.min, `the start of loop ${l.loopVar.name}`);
    this.expr(l.extent, r.extent, `the extent of loop ${l.loopVar.name}`);
    if (l.forKind !== r.forKind || l.threadTag !== r.threadTag) {
      this.fail(`loop ${l.loopVar.name} is ${loopKind(l)} but loop ${r.loopVar.name} of the description is ${loopKind(r)}`);
    }
    this.annotations(l.annotations, r.annotations, `loop ${l.loopVar.name}`);
    this.stmt(l.body, r.body);
    this.current = outer;
  }

  private blockRealize(l: BlockRealize, r: BlockRealize): void {
    const outer = this.current;
    this.current = l.block;
    if (!this.isScopeBlock) {
      l.iterValues.forEach((v, i) => this.expr(v, r.iterValues[i]!, `the binding of iterator ${l.block.iterVars[i]?.var.name ?? i}`));
    }
    this.expr(l.predicate, r.predicate, `the predicate of block ${l.block.name}`);
    this.block(l.block, r.block);
    this.current = outer;
  }

  private block(l: Block, r: Block): void {
    const where = `block "${l.name}"`;
    if (!this.isScopeBlock) {
      if (l.iterVars.length !== r.iterVars.length)
        this.fail(`${where} has ${l.iterVars.length} iterators, the description's block "${r.name}" ${r.iterVars.length}`);
      l.iterVars.forEach((iv, i) => this.iterVar(iv, r.iterVars[i]!, where));
      if (l.allocBuffers.length !== r.allocBuffers.length)
        this.fail(`${where} allocates ${l.allocBuffers.length} buffers, the description's ${r.allocBuffers.length}`);
      l.allocBuffers.forEach((b, i) => this.buffer(b, r.allocBuffers[i]!));
      for (const iv of r.iterVars) this.analyzer.bind(iv.var, iv.dom, true);
    }
    this.regions(l.writes, r.writes, `the writes of ${where}`);
    this.regions(l.reads, r.reads, `the reads of ${where}`);
    this.isScopeBlock = false;
    this.stmt(l.body, r.body);
  }

  private iterVar(l: IterVar, r: IterVar, where: string): void {
    if (l.iterType !== r.iterType) this.fail(`iterator ${l.var.name} of ${where} is ${l.iterType} but ${r.var.name} of the description is ${r.iterType}`);
    this.defineVar(l.var, r.var);
    if (!this.provablyEqual(l.dom.extent, r.dom.extent)) {
      this.fail(
        `iterator ${l.var.name} of ${where} ranges over ${printExpr(l.dom.extent)} values but ${r.var.name} of the description over ${printExpr(r.dom.extent)}`,
      );
    }
  }

  private defineVar(l: Var, r: Var): void {
    const known = this.varMap.get(l);
    if (known !== undefined && known !== r) this.fail(`variable ${l.name} is matched to both ${known.name} and ${r.name}`);
    if (dtypeInfo(l.dtype).code !== dtypeInfo(r.dtype).code) this.fail(`variable ${l.name} is ${l.dtype} but ${r.name} of the description is ${r.dtype}`);
    this.varMap.set(l, r);
  }

  private annotations(l: Annotations, r: Annotations, where: string): void {
    const lk = Object.keys(l).sort();
    const rk = Object.keys(r).sort();
    if (lk.join("\0") !== rk.join("\0") || lk.some((k) => JSON.stringify(l[k]) !== JSON.stringify(r[k]))) {
      this.fail(`the annotations of ${where} (${lk.join(", ") || "none"}) differ from the description's (${rk.join(", ") || "none"})`);
    }
  }

  private buffer(l: Buffer, r: Buffer): void {
    const known = this.bufferMap.get(r);
    if (known !== undefined) {
      if (known !== l) this.fail(`description buffer ${r.name} is matched to both ${known.name} and ${l.name}`);
      return;
    }
    const data = this.dataMap.get(l.data);
    if (data !== undefined ? data !== r.data : l.dtype !== r.dtype || l.scope !== r.scope) {
      this.fail(`buffer ${l.name} (${l.dtype}, scope ${l.scope}) does not match buffer ${r.name} of the description (${r.dtype}, scope ${r.scope})`);
    }
    this.dataMap.set(l.data, r.data);
    this.bufferMap.set(r, l);
  }

  private regions(l: readonly BufferRegion[], r: readonly BufferRegion[], what: string): void {
    if (l.length !== r.length) this.fail(`${what}: ${l.length} buffer regions where the description has ${r.length}`);
    l.forEach((region, i) => this.region(region, r[i]!));
  }

  private region(l: BufferRegion, r: BufferRegion): void {
    this.buffer(l.buffer, r.buffer);
    const name = l.buffer.name;
    const offset = l.region.length - r.region.length;
    if (offset < 0) this.fail(`buffer ${name} has ${l.region.length} dimensions, fewer than the ${r.region.length} of ${r.buffer.name} in the description`);
    const lead = l.region.slice(0, offset);
    const single = lead.findIndex((rg) => !isOne(rg.extent));
    if (single >= 0) this.fail(`dimension ${single} of the region of ${name} must be a single element, got ${printRange(lead[single]!)}`);
    let base = this.indicesBase.get(l.buffer);
    if (base === undefined) {
      if (!this.isScopeBlock) this.fail(`buffer ${name} is accessed by an inner block but the tensorized block declares no region of it`);
      base = l.region.map((rg) => rg.min);
      this.indicesBase.set(l.buffer, base);
    } else {
      lead.forEach((rg, d) => {
        if (!this.analyzer.canProveEqual(rg.min, base![d]!))
          this.fail(`the region of ${name} starts at ${printExpr(rg.min)} in dimension ${d}, not at ${printExpr(base![d]!)}`);
      });
    }
    r.region.forEach((rr, d) => {
      const lr = l.region[d + offset]!;
      if (!this.provablyEqual(lr.extent, rr.extent)) {
        this.fail(
          `the region of ${name} spans ${printExpr(lr.extent)} elements in dimension ${d + offset} but ${r.buffer.name} of the description spans ${printExpr(rr.extent)}`,
        );
      }
      if (!this.provablyEqual(sub(lr.min, base![d + offset]!), rr.min)) {
        this.fail(
          `the region of ${name} starts at ${printExpr(lr.min)} in dimension ${d + offset}, which is not where ${r.buffer.name} of the description starts (${printExpr(rr.min)})`,
        );
      }
    });
  }

  private access(lb: Buffer, li: readonly PrimExpr[], rb: Buffer, ri: readonly PrimExpr[], what: "load" | "store"): void {
    this.buffer(lb, rb);
    const base = this.indicesBase.get(lb);
    if (base === undefined) this.fail(`buffer ${lb.name} is accessed but the tensorized block declares no region of it`);
    const offset = li.length - ri.length;
    if (offset < 0) this.fail(`a ${what} of ${lb.name} has ${li.length} indices, fewer than the ${ri.length} of ${rb.name} in the description`);
    ri.forEach((r, d) => {
      const l = li[d + offset]!;
      if (!this.provablyEqual(sub(l, base[d + offset]!), r)) {
        this.fail(
          `a ${what} of ${lb.name}[${li.map((x) => printExpr(x)).join(", ")}] does not match ${rb.name}[${ri.map((x) => printExpr(x)).join(", ")}] of the description (index ${d + offset})`,
        );
      }
    });
  }

  /** `l` (workload variables replaced by their description counterparts) equals `r`. */
  private provablyEqual(l: PrimExpr, r: PrimExpr): boolean {
    const mapped = substitute(l, (v) => this.varMap.get(v));
    return this.analyzer.canProveEqual(mapped, r);
  }

  private expr(l: PrimExpr, r: PrimExpr, where: string): void {
    if (!this.sameExpr(l, r)) this.fail(`${where}: ${printExpr(l)} in the workload, ${printExpr(r)} in the description`);
  }

  private sameExpr(l: PrimExpr, r: PrimExpr): boolean {
    if (l === r) return true;
    if (l.kind !== r.kind || dtypeInfo(l.dtype).code !== dtypeInfo(r.dtype).code) return false;
    switch (l.kind) {
      case "IntImm":
      case "FloatImm":
      case "StringImm":
        return l.value === (r as typeof l).value;
      case "Var":
        return this.varMap.get(l) === r;
      case "Binary": {
        const rb = r as typeof l;
        return l.op === rb.op && this.sameExpr(l.a, rb.a) && this.sameExpr(l.b, rb.b);
      }
      case "Not":
        return this.sameExpr(l.a, (r as typeof l).a);
      case "Cast":
        return this.sameExpr(l.value, (r as typeof l).value);
      case "Select": {
        const rs = r as typeof l;
        return this.sameExpr(l.condition, rs.condition) && this.sameExpr(l.trueValue, rs.trueValue) && this.sameExpr(l.falseValue, rs.falseValue);
      }
      case "BufferLoad": {
        const rl = r as typeof l;
        this.access(l.buffer, l.indices, rl.buffer, rl.indices, "load");
        return true;
      }
      case "Call": {
        const rc = r as typeof l;
        return l.op === rc.op && l.args.length === rc.args.length && l.args.every((a, i) => this.sameExpr(a, rc.args[i]!));
      }
      case "Ramp": {
        const rr = r as typeof l;
        return l.lanes === rr.lanes && this.sameExpr(l.base, rr.base) && this.sameExpr(l.stride, rr.stride);
      }
      case "Broadcast": {
        const rb = r as typeof l;
        return l.lanes === rb.lanes && this.sameExpr(l.value, rb.value);
      }
      case "Let": {
        const rl = r as typeof l;
        if (!this.sameExpr(l.value, rl.value)) return false;
        this.defineVar(l.variable, rl.variable);
        return this.sameExpr(l.body, rl.body);
      }
    }
  }
}

const isOne = (e: PrimExpr): boolean => e.kind === "IntImm" && e.value === 1;

function printRange(r: Range): string {
  return `[${printExpr(r.min)}, ${printExpr(r.min)} + ${printExpr(r.extent)})`;
}

function loopKind(l: For): string {
  return l.forKind === "thread_binding" ? `bound to ${l.threadTag ?? "?"}` : l.forKind;
}

function describeStmt(s: Stmt): string {
  switch (s.kind) {
    case "For":
      return `loop (${s.loopVar.name})`;
    case "BlockRealize":
      return `block ("${s.block.name}")`;
    case "SeqStmt":
      return `sequence of ${s.seq.length} statements`;
    case "BufferStore":
      return `store to ${s.buffer.name}`;
    default:
      return s.kind;
  }
}
