/**
 * Pushes one virtual thread down its body (TVM's VTInjector). Virtual threads are the iterations
 * of a parallel loop that one real thread runs itself; what they compute alike is computed once:
 *
 * - a statement that reads nothing dependent on the virtual thread (vthread-dependence.ts) is
 *   kept as is, once;
 * - a sequence, or a loop / `if` / `let` / attribute / allocation whose own header is
 *   independent, is kept and its parts are treated the same way;
 * - any other statement is replicated, one copy per virtual thread index: unrolled when it is
 *   straight-line code and there are fewer than 16 virtual threads (TVM's rule), else inside a
 *   serial loop over the index;
 * - an allocation inside the scope of a buffer that depends on the virtual thread becomes one
 *   allocation `count` times larger, each virtual thread using its own slice
 *   (`index + v * extent`). Independent buffers (shared tiles fetched for all virtual threads)
 *   keep one copy.
 *
 * A barrier can be kept once but not replicated: copies run one after another in one thread,
 * so a barrier in each could not synchronise the block; that is an error.
 */
import {
  type Allocate,
  type AttrStmt,
  type Buffer,
  type BufferLoad,
  type BufferStore,
  type For,
  IRMutator,
  IRVisitor,
  type LetStmt,
  type PrimExpr,
  type Stmt,
  type Var,
  type While,
  add,
  allocate,
  broadcast,
  forLoop,
  lanesOf,
  mapArray,
  mul,
  printExpr,
  ramp,
  seq,
  simplify,
  substituteStmt,
  variable,
  withBuffer,
} from "@tessera/ir";
import { LoweringError } from "../errors.js";
import { instantiations } from "../util/instantiate.js";
import { isBarrier } from "./sync.js";
import { readsAny } from "../util/reads.js";

/** Replicas are unrolled only for fewer virtual threads than this (TVM's threshold). */
const UNROLL_VIRTUAL_THREADS_BELOW = 16;

export interface VirtualThreadScope {
  /** The pass reporting errors. */
  readonly pass: string;
  readonly variable: Var;
  readonly count: number;
  /** `variable` and what depends on it (variables and buffer `data` variables). */
  readonly dependents: ReadonlySet<Var>;
}

/** An allocation of the scope made `count` times larger. */
interface Expansion {
  readonly original: Buffer;
  readonly expanded: Buffer;
  /** Elements of one virtual thread's slice. */
  readonly stride: PrimExpr;
}

export class VirtualThreadInjector {
  private readonly expansions = new Map<Var, Expansion>();

  constructor(private readonly scope: VirtualThreadScope) {}

  inject(s: Stmt): Stmt {
    switch (s.kind) {
      case "BufferStore":
        return this.scope.dependents.has(s.buffer.data) || this.reads(s.value, ...s.indices) ? this.replicate(s) : s;
      case "Evaluate":
        return this.reads(s.value) ? this.replicate(s) : s;
      case "SeqStmt": {
        const parts = mapArray(s.seq, (c) => this.inject(c));
        return parts === s.seq ? s : seq(parts);
      }
      case "IfThenElse": {
        if (this.reads(s.condition)) return this.replicate(s);
        const thenCase = this.inject(s.thenCase);
        const elseCase = s.elseCase === undefined ? undefined : this.inject(s.elseCase);
        return thenCase === s.thenCase && elseCase === s.elseCase ? s : { ...s, thenCase, elseCase };
      }
      case "For":
        return this.reads(s.min, s.extent) ? this.replicate(s) : this.withInjectedBody(s);
      case "While":
        return this.reads(s.condition) ? this.replicate(s) : this.withInjectedBody(s);
      case "LetStmt":
      case "AttrStmt":
        return this.reads(s.value) ? this.replicate(s) : this.withInjectedBody(s);
      case "Allocate":
        if (this.reads(...s.buffer.shape)) return this.replicate(s);
        return this.scope.dependents.has(s.buffer.data) ? this.expand(s.buffer, s.body) : this.withInjectedBody(s);
      case "DeclBuffer": {
        const buffer = this.expansionOf(s.buffer)?.expanded ?? s.buffer;
        const body = this.inject(s.body);
        return buffer === s.buffer && body === s.body ? s : { ...s, buffer, body };
      }
      case "BlockRealize":
        throw new LoweringError(this.scope.pass, `block ${s.block.name} remains: run lowerOpaqueBlock first`);
    }
  }

  private withInjectedBody(s: For | While | LetStmt | AttrStmt | Allocate): Stmt {
    const body = this.inject(s.body);
    return body === s.body ? s : { ...s, body };
  }

  private reads(...exprs: PrimExpr[]): boolean {
    return exprs.some((e) => readsAny(e, this.scope.dependents));
  }

  /** The allocation of `buffer`, one slice per virtual thread. */
  private expand(buffer: Buffer, body: Stmt): Stmt {
    if (buffer.shape.length !== 1) {
      throw new LoweringError(
        this.scope.pass,
        `${this.name}: buffer ${buffer.name} depends on the virtual thread but is not flat (shape of ${buffer.shape.length} dimensions); run flattenBuffer first`,
      );
    }
    const stride = buffer.shape[0]!;
    const expanded = withBuffer(buffer, { shape: [simplify(mul(stride, this.scope.count))] });
    this.expansions.set(buffer.data, { original: buffer, expanded, stride });
    return allocate(expanded, this.inject(body));
  }

  private expansionOf(buffer: Buffer): Expansion | undefined {
    const expansion = this.expansions.get(buffer.data);
    if (expansion === undefined || buffer === expansion.original) return expansion;
    if (buffer.dtype !== expansion.original.dtype || buffer.shape.length !== 1 || !isZero(buffer.elemOffset)) {
      throw new LoweringError(
        this.scope.pass,
        `${this.name}: buffer ${buffer.name} views the storage of ${expansion.original.name}, which gets one slice per virtual thread, with another dtype or layout`,
      );
    }
    return expansion;
  }

  /** One copy of `s` per virtual thread index. */
  private replicate(s: Stmt): Stmt {
    this.rejectBarrier(s);
    const { variable: v, count } = this.scope;
    const body = new SliceRewriter((b) => this.expansionOf(b), v).visitStmt(s);
    if (count < UNROLL_VIRTUAL_THREADS_BELOW && isStraightLine(body)) {
      return seq(
        instantiations(
          body,
          v,
          Array.from({ length: count }, (_, i) => i),
        ),
      );
    }
    const index = variable(`${v.name}.s`, v.dtype);
    return forLoop(index, count, substituteStmt(body, new Map([[v, index]])));
  }

  private rejectBarrier(s: Stmt): void {
    if (hasStatement(s, isBarrier)) {
      throw new LoweringError(
        this.scope.pass,
        `${this.name}: a barrier (T.tvm_storage_sync) is inside ${describe(s)}, which depends on the virtual thread, so it would run once per virtual thread, one after another in each thread, and could not synchronise the block; move the barrier out of the code that depends on ${this.scope.variable.name}, or bind the loop to threadIdx instead`,
      );
    }
  }

  private get name(): string {
    return `virtual thread ${this.scope.variable.name}`;
  }
}

/** Accesses to expanded allocations moved to the slice of the virtual thread `v`. */
class SliceRewriter extends IRMutator {
  constructor(
    private readonly expansionOf: (buffer: Buffer) => Expansion | undefined,
    private readonly v: Var,
  ) {
    super();
  }

  override mapBuffer(buffer: Buffer): Buffer {
    return this.expansionOf(buffer)?.expanded ?? buffer;
  }

  override visitBufferLoad(e: BufferLoad): PrimExpr {
    const load = super.visitBufferLoad(e);
    const expansion = this.expansionOf(e.buffer);
    if (expansion === undefined || load.kind !== "BufferLoad") return load;
    return { ...load, indices: [this.sliceIndex(load.indices[0]!, expansion)] };
  }

  override visitBufferStore(s: BufferStore): Stmt {
    const store = super.visitBufferStore(s);
    const expansion = this.expansionOf(s.buffer);
    if (expansion === undefined || store.kind !== "BufferStore") return store;
    return { ...store, indices: [this.sliceIndex(store.indices[0]!, expansion)] };
  }

  private sliceIndex(index: PrimExpr, expansion: Expansion): PrimExpr {
    return offsetIndex(index, mul(this.v, expansion.stride));
  }
}

/** `index + offset`, keeping a vector index one Ramp (`Ramp(b + o, s, n)`, not `Ramp + Broadcast`). */
function offsetIndex(index: PrimExpr, offset: PrimExpr): PrimExpr {
  if (index.kind === "Ramp") return ramp(simplify(add(index.base, offset)), index.stride, index.lanes);
  const lanes = lanesOf(index.dtype);
  return lanes === 1 ? simplify(add(index, offset)) : add(index, broadcast(offset, lanes));
}

/** Only stores, evaluations, sequences and ifs: copies of it can sit side by side in one C scope. */
function isStraightLine(s: Stmt): boolean {
  return !hasStatement(s, (x) => x.kind !== "BufferStore" && x.kind !== "Evaluate" && x.kind !== "SeqStmt" && x.kind !== "IfThenElse");
}

/** Is there a statement for which `test` holds in `root` (itself included)? */
function hasStatement(root: Stmt, test: (s: Stmt) => boolean): boolean {
  return new StatementSearch(test).search(root);
}

class StatementSearch extends IRVisitor {
  private found = false;

  constructor(private readonly test: (s: Stmt) => boolean) {
    super();
  }

  search(root: Stmt): boolean {
    this.visitStmt(root);
    return this.found;
  }

  override visitStmt(s: Stmt): void {
    if (this.found) return;
    if (this.test(s)) this.found = true;
    else super.visitStmt(s);
  }

  /** Statements only: expressions hold none. */
  override visitExpr(): void {}
}

function isZero(e: PrimExpr): boolean {
  return e.kind === "IntImm" && e.value === 0;
}

function describe(s: Stmt): string {
  switch (s.kind) {
    case "For":
      return `the loop over ${s.loopVar.name} (from ${printExpr(s.min)}, extent ${printExpr(s.extent)})`;
    case "IfThenElse":
      return `the if (${printExpr(s.condition)})`;
    case "While":
      return `the while (${printExpr(s.condition)})`;
    case "LetStmt":
      return `the let ${s.variable.name} = ${printExpr(s.value)}`;
    case "AttrStmt":
      return `the attribute ${s.key} = ${printExpr(s.value)}`;
    case "Allocate":
      return `the allocation of ${s.buffer.name}`;
    default:
      return "a statement";
  }
}
