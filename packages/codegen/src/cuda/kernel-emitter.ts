/**
 * CUDA C text of one lowered device kernel: its signature and its statements. The walk is the
 * shared one (walker/stmt-walker.ts); this is CUDA's spelling, cp.async and WMMA included.
 */
import {
  ASYNC_COMMIT_QUEUE_SCOPE,
  ASYNC_SCOPE,
  ASYNC_WAIT_QUEUE_SCOPE,
  type Allocate,
  type AsyncWait,
  type AttrStmt,
  type BufferStore,
  type Call,
  type For,
  IRError,
  type PrimExpr,
  asAsyncCopy,
  asyncWaitOf,
  bytesOf,
  constantSize,
  forEachExpr,
  forEachStmt,
  isMbarrierOp,
  isSetmaxnreg,
  CP_ASYNC_BULK_TENSOR_2D,
  lanesOf,
  type Var,
} from "@tessera/ir";
import { IndexFacts } from "../c-family/index-facts.js";
import { NameTable, isCIdentifier } from "../c-family/names.js";
import { tensorMapParamName } from "../lower/kernel/device-kernel.js";
import type { DeviceKernel } from "../lowered.js";
import { StmtWalker, readsStorage } from "../walker/stmt-walker.js";
import { commitGroupStatement, cpAsyncStatement, waitGroupStatement } from "./async-copy.js";
import type { EmitContext } from "./context.js";
import { ExprEmitter } from "./expr-emitter.js";
import { type LaunchShape, launchShape } from "./launch.js";
import type { Feature } from "./preamble.js";
import { MMA_OPS, mmaStatement } from "./mma.js";
import { WGMMA_OPS, callsWgmma, wgmmaStatement } from "./wgmma.js";
import { mbarrierStatement } from "./mbarrier.js";
import { TENSOR_MAP_C_TYPE, setmaxnregStatement, tmaStatement } from "./tma.js";
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

/** Orders this thread's generic-proxy writes of shared memory before later async-proxy reads (wgmma). */
const FENCE_PROXY_ASYNC_LINE = 'asm volatile("fence.proxy.async.shared::cta;\\n" ::: "memory");';

class KernelEmitter extends StmtWalker<EmitContext, ExprEmitter> {
  protected readonly language = "CUDA";
  protected readonly barrierScopes = ["shared", "warp"] as const;
  private staticSharedBytes = 0;
  private dynamicSharedBytes = 0;
  /** Each TMA-loaded buffer's tensor-map parameter, by the buffer's data variable. */
  private readonly tensorMaps = new Map<Var, string>();
  /** The WMMA fragments' shapes and layouts, inferred at the first fragment allocation. */
  private fragments: ReturnType<typeof inferFragments> | undefined;

  constructor(
    private readonly kernel: DeviceKernel,
    private readonly shape: LaunchShape,
  ) {
    const ctx: EmitContext = {
      kernelName: kernel.name,
      names: new NameTable(),
      facts: new IndexFacts(),
      features: new Set(),
      storage: new Map(),
      predefined: new Map(),
      vectorAccessed: new Set(),
      wmmaAccessed: new Set(),
    };
    super(ctx, new ExprEmitter(ctx));
    for (const b of shape.bindings) {
      const cType = b.variable.dtype === "int64" ? "long long" : "int";
      this.ctx.predefined.set(b.variable, `((${cType})${b.tag})`);
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
    if (!isCIdentifier(this.kernel.name)) this.fail("the kernel name is not a valid C identifier");
    const restrict = (options.noalias ?? true) && !this.paramsShareStorage() ? " __restrict__" : "";
    const params = this.kernel.params.map((p) => {
      if (p.kind === "buffer") {
        if (lanesOf(p.buffer.dtype) > 1) this.fail(`parameter ${p.name} has vector element type ${p.buffer.dtype}; parameters hold scalars`);
        const cType = this.exprs.cType(p.buffer.dtype, `parameter ${p.name}`);
        const name = this.ctx.names.define(p.buffer.data, p.name);
        this.ctx.storage.set(p.buffer.data, { name, dtype: p.buffer.dtype });
        if (p.tensorMap === undefined) return `${cType}*${restrict} ${name}`;
        // The tensor map after the pointer (launch metadata lists it there too).
        const map = this.ctx.names.fresh(tensorMapParamName(p.name));
        this.tensorMaps.set(p.buffer.data, map);
        this.ctx.features.add("tma");
        return `${cType}*${restrict} ${name}, const __grid_constant__ ${TENSOR_MAP_C_TYPE} ${map}`;
      }
      const cType = this.exprs.cType(p.dtype, `parameter ${p.name}`);
      return `${cType} ${this.ctx.names.define(p.var, p.name)}`;
    });
    const linkage = options.linkage === "static" ? "static" : `extern "C"`;
    const minBlocks = this.kernel.launch.minBlocksPerSM;
    const bounds = `__launch_bounds__(${this.shape.threadsPerBlock}${minBlocks === undefined ? "" : `, ${minBlocks}`})`;
    return `${linkage} __global__ void ${bounds} ${this.kernel.name}(${params.join(", ")})`;
  }

  #asyncProxyReads: boolean | undefined;

  /** Whether the kernel calls wgmma, whose operands the tensor cores read from shared memory. */
  private readsThroughAsyncProxy(): boolean {
    if (this.#asyncProxyReads === undefined) {
      let found = false;
      forEachExpr(this.kernel.body, (e) => {
        if (e.kind === "Call" && callsWgmma(e.op)) found = true;
      });
      this.#asyncProxyReads = found;
    }
    return this.#asyncProxyReads;
  }

  #sharedStores: boolean | undefined;

  /** Whether the kernel stores into shared memory with plain stores (not cp.async copies). */
  private storesIntoShared(): boolean {
    if (this.#sharedStores === undefined) {
      let found = false;
      forEachStmt(this.kernel.body, (st) => {
        if (st.kind === "BufferStore" && (st.buffer.scope === "shared" || st.buffer.scope === "shared.dyn")) found = true;
      });
      this.#sharedStores = found;
    }
    return this.#sharedStores;
  }

  /** Two parameters bound to the same host buffer alias, so neither may be `__restrict__`. */
  private paramsShareStorage(): boolean {
    const keys = this.kernel.params.flatMap((p) => (p.kind === "buffer" ? [`${p.source.kind}:${p.source.index}`] : []));
    return new Set(keys).size !== keys.length;
  }

  /**
   * The async queue attributes become cp.async group operations around their body. thread_extent
   * attributes only scope their (already bound) thread index; other attributes (pragmas,
   * alignment hints) carry nothing the C code needs.
   */
  protected override attr(s: AttrStmt): void {
    if (s.key === ASYNC_COMMIT_QUEUE_SCOPE) {
      this.stmt(s.body);
      return this.out.line(commitGroupStatement(this.ctx));
    }
    if (s.key === ASYNC_WAIT_QUEUE_SCOPE) {
      let wait: AsyncWait;
      try {
        wait = asyncWaitOf(s);
      } catch (err) {
        if (err instanceof IRError) this.fail(err.message);
        throw err;
      }
      this.out.line(waitGroupStatement(this.ctx, this.exprs, wait.inflight));
      // The copies wrote through the generic proxy; wgmma reads shared memory through the async one.
      if (this.readsThroughAsyncProxy()) this.out.line(FENCE_PROXY_ASYNC_LINE);
      return this.stmt(wait.body);
    }
    if (s.key === ASYNC_SCOPE) this.fail("an async_scope attribute is left; injectPTXAsyncCopy turns its copies into T.ptx_cp_async");
    this.stmt(s.body);
  }

  protected allocate(s: Allocate): void {
    const { buffer } = s;
    const elements = constantSize(buffer);
    if (elements === undefined) {
      this.fail(`allocation ${buffer.name} (${buffer.scope}) has a symbolic size; CUDA needs a constant size`);
    }
    const cType = this.exprs.cType(buffer.dtype, `allocation ${buffer.name}`);
    const name = this.ctx.names.define(buffer.data, buffer.name);
    this.ctx.storage.set(buffer.data, { name, dtype: buffer.dtype });
    const bytes = elements * bytesOf(buffer.dtype);
    const at = this.out.position;
    this.walkAllocationBody(s);
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
        if (this.dynamicSharedBytes > 0) this.fail(`more than one shared.dyn allocation (${buffer.name}); merge them into one`);
        this.dynamicSharedBytes = bytes;
        // wgmma's 128-byte swizzle works on address bits 4–9: its tiles start at 1024-byte boundaries.
        // So do TMA's swizzled boxes (8 rows of the swizzle span: up to 1024 bytes).
        declaration = `extern __shared__ __align__(${this.readsThroughAsyncProxy() || this.tensorMaps.size > 0 ? 1024 : 16}) ${cType} ${name}[];`;
        break;
      default:
        return this.fail(
          `allocation ${buffer.name} has scope ${buffer.scope}; a kernel allocates only shared, local or WMMA fragment storage (global buffers are workspaces)`,
        );
    }
    this.out.insert(at, declaration);
  }

  protected override loopHead(s: For, type: string, name: string, min: string, end: string): readonly string[] {
    const head = super.loopHead(s, type, name, min, end);
    return s.forKind === "unrolled" ? ["#pragma unroll", ...head] : head;
  }

  protected conditionalHead(keyword: "if" | "while", condition: PrimExpr): string {
    return `${keyword} (${this.exprs.condition(condition)})`;
  }

  protected barrier(scope: string): string | undefined {
    // Plain stores into shared memory also write through the generic proxy: in a kernel with wgmma
    // that has any, every thread fences them before each barrier (the tensor cores read the tiles
    // after the barrier that publishes them). Without it an unpipelined wgmma candidate, whose tiles
    // are stored by plain stores, computed wrong results on an H200. Landed cp.async copies are
    // fenced after their wait (attr above), so pipelined kernels keep one fence a stage.
    if (scope === "shared" || scope === "shared.dyn")
      return this.readsThroughAsyncProxy() && this.storesIntoShared() ? `${FENCE_PROXY_ASYNC_LINE} __syncthreads();` : "__syncthreads();";
    return scope === "warp" ? "__syncwarp();" : undefined;
  }

  protected override specialCall(call: Call): string | undefined {
    const copy = asAsyncCopy(call);
    if (copy !== undefined) return cpAsyncStatement(this.ctx, this.exprs, copy);
    if (WMMA_OPS.has(call.op)) return wmmaStatement(this.ctx, this.exprs, call);
    if (MMA_OPS.has(call.op)) return mmaStatement(this.ctx, this.exprs, call);
    if (WGMMA_OPS.has(call.op)) return wgmmaStatement(this.ctx, this.exprs, call);
    if (isMbarrierOp(call.op)) return mbarrierStatement(this.ctx, this.exprs, call);
    if (call.op === CP_ASYNC_BULK_TENSOR_2D) return tmaStatement(this.ctx, this.exprs, call, this.tensorMaps);
    if (isSetmaxnreg(call.op)) return setmaxnregStatement(this.ctx, call);
    return undefined;
  }

  /** Lanes stored one by one need temporaries only when the value reads what it overwrites. */
  protected override scatterNeedsTemporaries(s: BufferStore): boolean {
    return readsStorage(s.value, s.buffer.data);
  }
}

/** Emits one kernel; `shape` is computed from its body when not given. */
export function emitKernel(kernel: DeviceKernel, options: KernelEmitOptions = {}, shape: LaunchShape = launchShape(kernel)): EmittedKernel {
  return new KernelEmitter(kernel, shape).emit(options);
}
