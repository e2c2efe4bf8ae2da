/**
 * CUDA C text of one lowered device kernel: its signature and its statements.
 */
import { SourceLines } from "../c-family/source-lines.js";
import {
  ASYNC_COMMIT_QUEUE_SCOPE,
  ASYNC_SCOPE,
  ASYNC_WAIT_QUEUE_SCOPE,
  type Allocate,
  type AsyncWait,
  type AttrStmt,
  IRError,
  asAsyncCopy,
  asyncWaitOf,
  type BufferStore,
  type Evaluate,
  type For,
  type IfThenElse,
  type LetStmt,
  type PrimExpr,
  type Stmt,
  type Var,
  bytesOf,
  constantSize,
  lanesOf,
} from "@tessera/ir";
import type { DeviceKernel } from "../lowered.js";
import { commitGroupStatement, cpAsyncStatement, waitGroupStatement } from "./async-copy.js";
import { type EmitContext, fail } from "./context.js";
import { ExprEmitter } from "./expr-emitter.js";
import { IndexFacts } from "../c-family/index-facts.js";
import { type LaunchShape, launchShape } from "./launch.js";
import { NameTable, isCIdentifier } from "../c-family/names.js";
import type { Feature } from "./preamble.js";
import { MMA_OPS, mmaStatement } from "./mma.js";
import { WMMA_OPS, fragmentDeclaration, inferFragments, wmmaStatement } from "./wmma.js";

export interface KernelEmitOptions {
  /**
   * `extern "C"` (a standalone source, looked up by symbol name) or `static` (a header that
   * several translation units may include).
   */
  readonly linkage?: "extern-c" | "static";
  /** Mark pointer parameters `__restrict__` (the function's `tir.noalias`); default true. */
  readonly noalias?: boolean;
}

export interface EmittedKernel {
  readonly text: string;
  readonly features: ReadonlySet<Feature>;
  readonly shape: LaunchShape;
  /** Bytes of static `__shared__` arrays. */
  readonly staticSharedBytes: number;
  /** Bytes of the `shared.dyn` allocation (0 when none). */
  readonly dynamicSharedBytes: number;
}

class KernelEmitter {
  private readonly out = new SourceLines();
  private readonly ctx: EmitContext;
  private readonly exprs: ExprEmitter;
  private staticSharedBytes = 0;
  private dynamicSharedBytes = 0;
  /**
   * Changes whenever what a statement's text depends on does (a name defined, a range known).
   * Unrolled code repeats the same store objects: while it stays, their text is reused.
   */
  private scope = 0;
  private readonly storeText = new Map<BufferStore, { readonly scope: number; readonly text: string }>();
  /** The WMMA fragments' shapes and layouts, inferred at the first fragment allocation. */
  private fragments: ReturnType<typeof inferFragments> | undefined;

  constructor(
    private readonly kernel: DeviceKernel,
    private readonly shape: LaunchShape,
  ) {
    this.ctx = {
      kernelName: kernel.name,
      names: new NameTable(),
      facts: new IndexFacts(),
      features: new Set(),
      storage: new Map(),
      threadIndex: new Map(),
      vectorAccessed: new Set(),
      wmmaAccessed: new Set(),
    };
    this.exprs = new ExprEmitter(this.ctx);
    for (const b of shape.bindings) {
      const cType = b.variable.dtype === "int64" ? "long long" : "int";
      this.ctx.threadIndex.set(b.variable, `((${cType})${b.tag})`);
      this.ctx.facts.bindThread(b.variable, b.extent);
    }
  }

  emit(options: KernelEmitOptions): EmittedKernel {
    const signature = this.signature(options);
    this.stmt(this.kernel.body);
    const text = [`${signature} {`, ...this.out.lines, "}"].join("\n");
    return {
      text,
      features: this.ctx.features,
      shape: this.shape,
      staticSharedBytes: this.staticSharedBytes,
      dynamicSharedBytes: this.dynamicSharedBytes,
    };
  }

  private signature(options: KernelEmitOptions): string {
    if (!isCIdentifier(this.kernel.name)) fail(this.ctx, "the kernel name is not a valid C identifier");
    const restrict = (options.noalias ?? true) && !this.paramsShareStorage() ? " __restrict__" : "";
    const params = this.kernel.params.map((p) => {
      if (p.kind === "buffer") {
        if (lanesOf(p.buffer.dtype) > 1) fail(this.ctx, `parameter ${p.name} has vector element type ${p.buffer.dtype}; parameters hold scalars`);
        const cType = this.exprs.cType(p.buffer.dtype, `parameter ${p.name}`);
        const name = this.ctx.names.define(p.buffer.data, p.name);
        this.ctx.storage.set(p.buffer.data, { name, dtype: p.buffer.dtype });
        return `${cType}*${restrict} ${name}`;
      }
      const cType = this.exprs.cType(p.dtype, `parameter ${p.name}`);
      return `${cType} ${this.ctx.names.define(p.var, p.name)}`;
    });
    const linkage = options.linkage === "static" ? "static" : `extern "C"`;
    const minBlocks = this.kernel.launch.minBlocksPerSM;
    const bounds = `__launch_bounds__(${this.shape.threadsPerBlock}${minBlocks === undefined ? "" : `, ${minBlocks}`})`;
    return `${linkage} __global__ void ${bounds} ${this.kernel.name}(${params.join(", ")})`;
  }

  /** Two parameters bound to the same host buffer alias, so neither may be `__restrict__`. */
  private paramsShareStorage(): boolean {
    const keys = this.kernel.params.flatMap((p) => (p.kind === "buffer" ? [`${p.source.kind}:${p.source.index}`] : []));
    return new Set(keys).size !== keys.length;
  }

  private stmt(s: Stmt): void {
    switch (s.kind) {
      case "SeqStmt":
        for (const x of s.seq) this.stmt(x);
        return;
      case "AttrStmt":
        return this.attr(s);
      case "DeclBuffer":
        return this.stmt(s.body);
      case "Allocate":
        return this.allocate(s);
      case "For":
        return this.forLoop(s);
      case "IfThenElse":
        return this.ifThenElse(s);
      case "While":
        this.out.line(`while (${this.exprs.condition(s.condition)}) {`);
        this.out.nested(() => this.stmt(s.body));
        return this.out.line("}");
      case "LetStmt":
        return this.letStmt(s);
      case "BufferStore":
        return this.store(s);
      case "Evaluate":
        return this.evaluate(s);
      case "BlockRealize":
        return fail(this.ctx, `block ${s.block.name} was not lowered; the CUDA generator needs lowered (block-free) kernels`);
    }
  }

  /**
   * The async queue attributes become cp.async group operations around their body. thread_extent
   * attributes only scope their (already bound) thread index; other attributes (pragmas,
   * alignment hints) carry nothing the C code needs.
   */
  private attr(s: AttrStmt): void {
    if (s.key === ASYNC_COMMIT_QUEUE_SCOPE) {
      this.stmt(s.body);
      return this.out.line(commitGroupStatement(this.ctx));
    }
    if (s.key === ASYNC_WAIT_QUEUE_SCOPE) {
      let wait: AsyncWait;
      try {
        wait = asyncWaitOf(s);
      } catch (err) {
        if (err instanceof IRError) fail(this.ctx, err.message);
        throw err;
      }
      this.out.line(waitGroupStatement(this.ctx, this.exprs, wait.inflight));
      return this.stmt(wait.body);
    }
    if (s.key === ASYNC_SCOPE) fail(this.ctx, "an async_scope attribute is left; injectPTXAsyncCopy turns its copies into T.ptx_cp_async");
    this.stmt(s.body);
  }

  private allocate(s: Allocate): void {
    const { buffer } = s;
    const elements = constantSize(buffer);
    if (elements === undefined) {
      fail(this.ctx, `allocation ${buffer.name} (${buffer.scope}) has a symbolic size; CUDA needs a constant size`);
    }
    const cType = this.exprs.cType(buffer.dtype, `allocation ${buffer.name}`);
    const name = this.ctx.names.define(buffer.data, buffer.name);
    this.ctx.storage.set(buffer.data, { name, dtype: buffer.dtype });
    this.scope++;
    const bytes = elements * bytesOf(buffer.dtype);
    const at = this.out.position;
    this.stmt(s.body);
    // Declared after the body is emitted, so that vector accesses found there can align it.
    const align = this.ctx.wmmaAccessed.has(buffer.data) ? "__align__(32) " : this.ctx.vectorAccessed.has(buffer.data) ? "__align__(16) " : "";
    let declaration: string;
    switch (buffer.scope) {
      case "wmma.matrix_a":
      case "wmma.matrix_b":
      case "wmma.accumulator":
        this.fragments ??= inferFragments(this.ctx, this.kernel.body);
        declaration = fragmentDeclaration(this.ctx, buffer, name, elements, this.fragments.get(buffer.data));
        break;
      case "shared":
        this.staticSharedBytes += bytes;
        declaration = `__shared__ ${align}${cType} ${name}[${elements}];`;
        break;
      case "local":
        declaration = `${align}${cType} ${name}[${elements}];`;
        break;
      case "shared.dyn":
        if (this.dynamicSharedBytes > 0) fail(this.ctx, `more than one shared.dyn allocation (${buffer.name}); merge them into one`);
        this.dynamicSharedBytes = bytes;
        declaration = `extern __shared__ __align__(16) ${cType} ${name}[];`;
        break;
      default:
        return fail(
          this.ctx,
          `allocation ${buffer.name} has scope ${buffer.scope}; a kernel allocates only shared, local or WMMA fragment storage (global buffers are workspaces)`,
        );
    }
    this.out.insert(at, declaration);
  }

  private forLoop(s: For): void {
    if (s.forKind === "thread_binding" || s.forKind === "parallel") {
      fail(this.ctx, `loop ${s.loopVar.name} is still a ${s.forKind} loop; lowering turns thread bindings into thread_extent attributes`);
    }
    const cType = this.exprs.cType(s.loopVar.dtype, `loop variable ${s.loopVar.name}`);
    const name = this.ctx.names.define(s.loopVar, s.loopVar.name);
    this.ctx.facts.bindLoop(s.loopVar, s.min, s.extent);
    this.scope++;
    const min = this.exprs.expr(s.min);
    const end =
      s.min.kind === "IntImm" && s.extent.kind === "IntImm"
        ? String(s.min.value + s.extent.value)
        : isZero(s.min)
          ? this.exprs.expr(s.extent)
          : `(${min} + ${this.exprs.expr(s.extent)})`;
    if (s.forKind === "unrolled") this.out.line("#pragma unroll");
    this.out.line(`for (${cType} ${name} = ${min}; ${name} < ${end}; ++${name}) {`);
    this.out.nested(() => this.stmt(s.body));
    this.out.line("}");
  }

  private ifThenElse(s: IfThenElse): void {
    this.out.line(`if (${this.exprs.condition(s.condition)}) {`);
    this.out.nested(() => this.stmt(s.thenCase));
    if (s.elseCase !== undefined) {
      this.out.line("} else {");
      this.out.nested(() => this.stmt(s.elseCase!));
    }
    this.out.line("}");
  }

  private letStmt(s: LetStmt): void {
    const cType = this.exprs.cType(s.variable.dtype, `let variable ${s.variable.name}`);
    const value = lanesOf(s.value.dtype) > 1 ? this.exprs.vector(s.value) : this.exprs.expr(s.value);
    const name = this.ctx.names.define(s.variable, s.variable.name);
    this.ctx.facts.bindLet(s.variable, s.value);
    this.scope++;
    this.out.line(`${cType} ${name} = ${value};`);
    this.stmt(s.body);
  }

  private store(s: BufferStore): void {
    const known = this.storeText.get(s);
    if (known !== undefined && known.scope === this.scope) return this.out.line(known.text);
    const text = this.storeLine(s);
    if (text !== undefined) {
      this.storeText.set(s, { scope: this.scope, text: flattened(text) });
      this.out.line(text);
    }
  }

  /** The one line of a store, or undefined when it took several (written already). */
  private storeLine(s: BufferStore): string | undefined {
    const index = s.indices[0];
    const name = this.exprs.storageOf(s);
    if (index === undefined) return undefined;
    const valueLanes = lanesOf(s.value.dtype);
    if (valueLanes === 1 || lanesOf(index.dtype) === 1) {
      const value = valueLanes === 1 ? this.exprs.expr(s.value) : this.exprs.vector(s.value);
      return `${name}[${this.exprs.expr(index)}] = ${value};`;
    }
    const contiguous = this.exprs.contiguousAccess(s.buffer, index, s.value.dtype);
    if (contiguous !== undefined) {
      return `*(${contiguous.vectorType}*)(${contiguous.pointer} + ${this.exprs.expr(contiguous.base)}) = ${this.exprs.vector(s.value)};`;
    }
    this.scatter(s, name, index, valueLanes);
    return undefined;
  }

  /** A vector store that cannot be one aligned access: one scalar store per lane. */
  private scatter(s: BufferStore, name: string, index: PrimExpr, lanes: number): void {
    const indices = Array.from({ length: lanes }, (_, i) => this.exprs.lane(index, i));
    const values = Array.from({ length: lanes }, (_, i) => this.exprs.lane(s.value, i));
    if (!readsStorage(s.value, s.buffer.data)) {
      indices.forEach((idx, i) => this.out.line(`${name}[${idx}] = ${values[i]!};`));
      return;
    }
    // The value reads the storage it overwrites: compute every lane before the first store.
    const cType = this.exprs.cType(s.buffer.dtype, `buffer ${s.buffer.name}`);
    this.out.line("{");
    this.out.nested(() => {
      const temps = values.map((v, i) => {
        const t = this.ctx.names.fresh(`${name}_lane${i}`);
        this.out.line(`${cType} ${t} = ${v};`);
        return t;
      });
      indices.forEach((idx, i) => this.out.line(`${name}[${idx}] = ${temps[i]!};`));
    });
    this.out.line("}");
  }

  private evaluate(s: Evaluate): void {
    const v = s.value;
    if (v.kind === "Call" && v.op === "tvm_storage_sync") {
      const scope = v.args[0]?.kind === "StringImm" ? v.args[0].value : undefined;
      if (scope === "shared" || scope === "shared.dyn") return this.out.line("__syncthreads();");
      if (scope === "warp") return this.out.line("__syncwarp();");
      return fail(this.ctx, `T.tvm_storage_sync(${JSON.stringify(scope ?? "?")}) has no CUDA translation (only "shared" and "warp")`);
    }
    // An assumption informs the simplifier only (TVM's RemoveAssume drops it likewise).
    if (v.kind === "IntImm" || (v.kind === "Call" && v.op === "assume")) return;
    const copy = asAsyncCopy(v);
    if (copy !== undefined) return this.out.line(cpAsyncStatement(this.ctx, this.exprs, copy));
    if (v.kind === "Call" && WMMA_OPS.has(v.op)) return this.out.line(wmmaStatement(this.ctx, this.exprs, v));
    if (v.kind === "Call" && MMA_OPS.has(v.op)) return this.out.line(mmaStatement(this.ctx, this.exprs, v));
    this.out.line(`${this.exprs.expr(v)};`);
  }
}

/**
 * `text`, made flat: V8 keeps a string built by concatenation as a tree of its pieces, and a
 * text written many times (a repeated store) would have that tree walked again each time the
 * kernel is joined. Reading a character flattens it, once.
 */
function flattened(text: string): string {
  text.charCodeAt(0);
  return text;
}

function isZero(e: PrimExpr): boolean {
  return e.kind === "IntImm" && e.value === 0;
}

/** True when `e` loads from the storage whose data variable is `data`. */
function readsStorage(e: PrimExpr, data: Var): boolean {
  let found = false;
  const visit = (x: PrimExpr): void => {
    if (found) return;
    switch (x.kind) {
      case "BufferLoad":
        if (x.buffer.data === data) found = true;
        x.indices.forEach(visit);
        return;
      case "Binary":
        visit(x.a);
        visit(x.b);
        return;
      case "Not":
      case "Cast":
      case "Broadcast":
        visit(x.kind === "Not" ? x.a : x.value);
        return;
      case "Select":
        [x.condition, x.trueValue, x.falseValue].forEach(visit);
        return;
      case "Ramp":
        visit(x.base);
        visit(x.stride);
        return;
      case "Let":
        visit(x.value);
        visit(x.body);
        return;
      case "Call":
        x.args.forEach(visit);
        return;
      default:
        return;
    }
  };
  visit(e);
  return found;
}

/** Emits one kernel; `shape` is computed from its body when not given. */
export function emitKernel(kernel: DeviceKernel, options: KernelEmitOptions = {}, shape: LaunchShape = launchShape(kernel)): EmittedKernel {
  return new KernelEmitter(kernel, shape).emit(options);
}
