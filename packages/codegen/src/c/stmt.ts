/**
 * C text of lowered (flat, block-free) TensorIR statements. Loop kinds become:
 * - `parallel`: `#pragma omp parallel for` on the outermost one; a parallel loop inside a parallel
 *   region or a SIMD loop runs serially (OpenMP would nest a team per iteration), and so does one
 *   with less than PARALLEL_MIN_WORK statically known work (waking the threads would cost more);
 * - `vectorized`: `#pragma omp simd` when every store in the body moves with the loop (no
 *   loop-carried reduction into one element), otherwise a plain loop the compiler may still
 *   vectorize; never nested in another SIMD loop;
 * - `unrolled` (left by unrollLoop when expansion was not possible or too large): `#pragma GCC unroll`.
 * Allocations up to STACK_LIMIT_BYTES are arrays on the stack of the scope that allocates them
 * (private to an OpenMP thread when allocated inside a parallel loop). Larger ones of a constant
 * size outside parallel loops are workspaces: 64-byte aligned heap blocks allocated on the first
 * call and kept, per calling thread, for the next calls (TVM's workspace pool). Freeing them at
 * the end of each call made every call page-fault megabytes in again, or not, depending on the C
 * library's allocator state in the process: a tuned 1024³ matmul lost a third of its speed when
 * rebuilt in another process. The others are heap blocks freed at the end of their scope.
 */
import { type Allocate, type For, type PrimExpr, type Stmt, type Var, bytesOf, constantSize, forEachStmt, usesVar } from "@tessera/ir";
import { IndexFacts } from "../c-family/index-facts.js";
import type { NameTable } from "../c-family/names.js";
import { CLoweringError } from "../lower/errors.js";
import { CExprPrinter } from "./expr.js";

export const STACK_LIMIT_BYTES = 64 * 1024;

/**
 * Stores a parallel loop nest must execute (counted from constant extents) to be worth an OpenMP
 * region: starting and joining a team costs microseconds, tens of them when the threads sleep.
 */
export const PARALLEL_MIN_WORK = 1 << 15;

export interface StmtPrinterOptions {
  readonly funcName: string;
  readonly names: NameTable;
  /** Storage by buffer data variable (parameters first; allocations are added while printing). */
  readonly storage: Map<Var, string>;
  /** OpenMP threads for parallel loops (a `num_threads` clause), or undefined for the default. */
  readonly numThreads?: number | undefined;
}

/** Counts of what the printed code uses, for reports and tests. */
export interface LoopSummary {
  parallel: number;
  simd: number;
  unrolled: number;
  serialized: number;
}

export class CStmtPrinter {
  private readonly facts = new IndexFacts();
  private readonly exprs: CExprPrinter;
  private readonly lines: string[] = [];
  private inParallel = false;
  private inSimd = false;
  readonly summary: LoopSummary = { parallel: 0, simd: 0, unrolled: 0, serialized: 0 };
  /** Bytes of each workspace slot (`tessera_workspaces[k]`), in the order of the allocations. */
  readonly workspaceBytes: number[] = [];

  constructor(private readonly opts: StmtPrinterOptions) {
    this.exprs = new CExprPrinter({
      facts: this.facts,
      nameOf: (v) => opts.names.lookup(v),
      storageOf: (data) => opts.storage.get(data),
      fail: (detail) => this.fail(detail),
    });
  }

  get expr(): CExprPrinter {
    return this.exprs;
  }

  print(s: Stmt, indent: number): string[] {
    this.stmt(s, indent);
    return this.lines;
  }

  private fail(detail: string): never {
    throw new CLoweringError(this.opts.funcName, detail);
  }

  private emit(indent: number, text: string): void {
    this.lines.push(`${"  ".repeat(indent)}${text}`);
  }

  private stmt(s: Stmt, indent: number): void {
    switch (s.kind) {
      case "SeqStmt":
        for (const c of s.seq) this.stmt(c, indent);
        return;
      case "BufferStore":
        this.emit(indent, `${this.exprs.access(s.buffer, s.indices)} = ${this.exprs.expr(s.value)};`);
        return;
      case "IfThenElse":
        this.emit(indent, `if (${this.exprs.expr(s.condition)}) {`);
        this.stmt(s.thenCase, indent + 1);
        if (s.elseCase !== undefined) {
          this.emit(indent, "} else {");
          this.stmt(s.elseCase, indent + 1);
        }
        this.emit(indent, "}");
        return;
      case "For":
        this.loop(s, indent);
        return;
      case "While":
        this.emit(indent, `while (${this.exprs.expr(s.condition)}) {`);
        this.stmt(s.body, indent + 1);
        this.emit(indent, "}");
        return;
      case "LetStmt": {
        this.facts.bindLet(s.variable, s.value);
        const type = this.exprs.cType(s.variable.dtype, `let ${s.variable.name}`);
        const value = this.exprs.expr(s.value);
        this.emit(indent, `const ${type} ${this.opts.names.define(s.variable, s.variable.name)} = ${value};`);
        this.stmt(s.body, indent);
        return;
      }
      case "Allocate":
        this.allocate(s, indent);
        return;
      case "DeclBuffer":
        if (!this.opts.storage.has(s.buffer.data)) this.fail(`buffer ${s.buffer.name} is declared over storage that is not allocated`);
        this.stmt(s.body, indent);
        return;
      case "AttrStmt":
        if (s.key === "thread_extent" || s.key === "virtual_thread") {
          this.fail(`a GPU launch dimension (${s.node?.name ?? s.key}) remains after lowering`);
        }
        // pragma_* and other attributes carry no code on the CPU.
        this.stmt(s.body, indent);
        return;
      case "Evaluate":
        if (s.value.kind === "Call" && s.value.op === "tvm_storage_sync") this.fail("a GPU barrier (T.tvm_storage_sync) cannot run on the CPU");
        // A no-op, or an assumption that informs the simplifier only (TVM's RemoveAssume drops it too).
        if (s.value.kind === "IntImm" || (s.value.kind === "Call" && s.value.op === "assume")) return;
        this.emit(indent, `(void)${this.exprs.expr(s.value)};`);
        return;
      case "BlockRealize":
        this.fail(`block ${s.block.name} remains after lowering`);
    }
  }

  private loop(s: For, indent: number): void {
    this.facts.bindLoop(s.loopVar, s.min, s.extent);
    const type = this.exprs.cType(s.loopVar.dtype, `loop ${s.loopVar.name}`);
    const min = this.exprs.expr(s.min);
    const extent = this.exprs.expr(s.extent);
    const name = this.opts.names.define(s.loopVar, s.loopVar.name);
    const end = min === "0" ? extent : `${min} + ${extent}`;
    const saved = { parallel: this.inParallel, simd: this.inSimd };
    switch (s.forKind) {
      case "parallel":
        if (!this.inParallel && !this.inSimd && estimatedWork(s) < PARALLEL_MIN_WORK) {
          this.emit(indent, `// parallel loop ${s.loopVar.name} runs serially: about ${estimatedWork(s)} stores, too little work for a thread team`);
          this.summary.serialized++;
        } else if (!this.inParallel && !this.inSimd) {
          const threads = this.opts.numThreads === undefined ? "" : ` num_threads(${this.opts.numThreads})`;
          this.emit(indent, `#pragma omp parallel for schedule(static)${threads}`);
          this.inParallel = true;
          this.summary.parallel++;
        } else {
          this.emit(indent, `// parallel loop ${s.loopVar.name} runs serially: it is nested in a ${this.inSimd ? "SIMD loop" : "parallel loop"}`);
          this.summary.serialized++;
        }
        break;
      case "vectorized":
        if (!this.inSimd && storesMoveWith(s)) {
          this.emit(indent, "#pragma omp simd");
          this.inSimd = true;
          this.summary.simd++;
        } else {
          const why = this.inSimd ? "it is nested in a SIMD loop" : "a store in its body does not move with it (a reduction)";
          this.emit(indent, `// vectorized loop ${s.loopVar.name} is left to the compiler: ${why}`);
          this.summary.serialized++;
        }
        break;
      case "unrolled":
        this.emit(indent, `#pragma GCC unroll ${s.extent.kind === "IntImm" ? Math.min(Math.max(s.extent.value, 1), 65534) : 8}`);
        this.summary.unrolled++;
        break;
      case "serial":
        break;
      case "thread_binding":
        this.fail(`loop ${s.loopVar.name} is bound to the GPU thread axis ${s.threadTag ?? "?"}; the C target has no thread axes`);
    }
    this.emit(indent, `for (${type} ${name} = ${min}; ${name} < ${end}; ++${name}) {`);
    this.stmt(s.body, indent + 1);
    this.emit(indent, "}");
    this.inParallel = saved.parallel;
    this.inSimd = saved.simd;
  }

  private allocate(s: Allocate, indent: number): void {
    const b = s.buffer;
    const type = this.exprs.cType(b.dtype, `buffer ${b.name}`);
    const name = this.opts.names.define(b.data, b.name);
    this.opts.storage.set(b.data, name);
    const elements = constantSize(b);
    const bytes = elements === undefined ? undefined : elements * bytesOf(b.dtype);
    if (bytes !== undefined && bytes <= STACK_LIMIT_BYTES) {
      this.emit(indent, `${type} ${name}[${Math.max(elements!, 1)}] __attribute__((aligned(64)));`);
      this.stmt(s.body, indent);
      return;
    }
    if (bytes !== undefined && !this.inParallel) {
      const slot = this.workspaceBytes.length;
      this.workspaceBytes.push(bytes);
      this.emit(indent, `${type}* restrict ${name} = (${type}*)tessera_workspace(&tessera_workspaces[${slot}], (size_t)${bytes});`);
      this.emit(indent, `if (${name} != NULL) {`);
      this.stmt(s.body, indent + 1);
      this.emit(indent, "}");
      return;
    }
    const size = bytes !== undefined ? `(size_t)${bytes}` : `(size_t)(${b.shape.map((d) => this.exprs.expr(d as PrimExpr)).join(" * ")}) * sizeof(${type})`;
    this.emit(indent, `${type}* restrict ${name} = (${type}*)tessera_alloc(${size});`);
    this.emit(indent, `if (${name} != NULL) {`);
    this.stmt(s.body, indent + 1);
    this.emit(indent + 1, `free(${name});`);
    this.emit(indent, "}");
  }
}

/** True when every store in the loop's body writes an element that depends on the loop variable. */
function storesMoveWith(loop: For): boolean {
  let ok = true;
  forEachStmt(loop.body, (st) => {
    if (st.kind === "BufferStore" && !st.indices.some((i) => usesVar(i, (v) => v === loop.loopVar))) ok = false;
    return ok;
  });
  return ok;
}

/** Stores `s` executes, from constant loop extents (Infinity when an extent is not constant). */
export function estimatedWork(s: Stmt): number {
  switch (s.kind) {
    case "BufferStore":
      return 1;
    case "SeqStmt":
      return s.seq.reduce((total, c) => total + estimatedWork(c), 0);
    case "IfThenElse":
      return Math.max(estimatedWork(s.thenCase), s.elseCase === undefined ? 0 : estimatedWork(s.elseCase));
    case "For":
      return (s.extent.kind === "IntImm" ? s.extent.value : Infinity) * estimatedWork(s.body);
    case "While":
      return Infinity;
    case "LetStmt":
    case "Allocate":
    case "DeclBuffer":
    case "AttrStmt":
      return estimatedWork(s.body);
    case "Evaluate":
      return 1;
    case "BlockRealize":
      return estimatedWork(s.block.body);
  }
}
