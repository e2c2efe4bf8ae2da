/**
 * `injectPTXAsyncCopy` (TVM's InjectPTXAsyncCopy): inside an `async_scope` attribute, every copy
 * `shared[i] = global[j]` of 4, 8 or 16 bytes becomes `T.ptx_cp_async(dtype, shared, i, global,
 * j, bytes)` — a scalar store, or a vector store whose indices are stride-1 Ramps (`i`, `j` are
 * then the Ramp bases). A copy whose value is `T.if_then_else(c, global[j], 0)` (or a Select) gets
 * `c` as the zero-fill predicate. The `async_scope` attribute itself is dropped, as in TVM; the
 * commit and wait attributes stay for the code generator.
 *
 * Beyond TVM: a copy wider than one cp.async, or one whose alignment to its full width cannot be
 * proven, is split into the widest copies whose alignment is proven (a cp.async of n bytes needs
 * n-byte aligned addresses). Anything else inside `async_scope` is a LoweringError, as are async
 * attributes on a target older than sm_80.
 *
 * Runs after threadSync (as in TVM), so that the barrier planner sees the copies as the shared
 * stores they are.
 */
import {
  Analyzer,
  type AttrStmt,
  type BufferLoad,
  type BufferStore,
  type For,
  IRError,
  IRMutator,
  type PrimExpr,
  type Stmt,
  ASYNC_ATTR_KEYS,
  ASYNC_COMMIT_QUEUE_SCOPE,
  ASYNC_SCOPE,
  ASYNC_WAIT_QUEUE_SCOPE,
  add,
  asyncWaitOf,
  bytesOf,
  elementType,
  eq,
  evaluate,
  floormod,
  forEachStmt,
  intImm,
  lanesOf,
  printExpr,
  ptxCpAsync,
  range,
  rangeFromExtent,
  seq,
  withBody,
} from "@tessera/ir";
import { LoweringError } from "../errors.js";
import { type Pass, cudaPass } from "../pass.js";
import { isSharedScope } from "../kernel/shared-access.js";
import { isThreadExtent } from "../kernel/thread-env.js";
import { asyncCopyUnsupported, supportsAsyncCopy } from "../../targets/cuda.js";

const PASS = "injectPTXAsyncCopy";

/** Copy widths of one cp.async, widest first. */
const CP_ASYNC_WIDTHS = [16, 8, 4] as const;

export const injectPTXAsyncCopyPass: Pass = cudaPass(PASS, (func, ctx) => {
  if (!hasAsyncAttributes(func.body)) return func;
  if (!supportsAsyncCopy(ctx.target)) throw new LoweringError(PASS, asyncCopyUnsupported(ctx.target));
  const body = new AsyncCopyInjector().visitStmt(func.body);
  return body === func.body ? func : withBody(func, body);
});

function hasAsyncAttributes(body: Stmt): boolean {
  let found = false;
  forEachStmt(body, (s) => {
    if (s.kind === "AttrStmt" && ASYNC_ATTR_KEYS.has(s.key)) found = true;
    return !found;
  });
  return found;
}

/** One side of a copy: the first element and how many follow it. */
interface Span {
  readonly base: PrimExpr;
  readonly lanes: number;
}

class AsyncCopyInjector extends IRMutator {
  /** Ranges of the loop and thread variables in scope, for alignment proofs. */
  private readonly analyzer = new Analyzer();
  private inAsyncScope = false;
  private inCommitScope = false;
  /** The one queue the kernel's async attributes use (CUDA has one cp.async queue per thread). */
  private queue: number | undefined;

  override visitStmt(s: Stmt): Stmt {
    if (s.kind === "AttrStmt") return this.visitAttr(s);
    if (this.inAsyncScope && s.kind === "Evaluate") {
      throw new LoweringError(
        PASS,
        `async_scope contains ${printExpr(s.value)}; only copies from global to shared memory (and the loops and conditions around them) may be asynchronous`,
      );
    }
    if (s.kind === "LetStmt") this.analyzer.bind(s.variable, s.value, true);
    return super.visitStmt(s);
  }

  override visitFor(s: For): Stmt {
    if (this.analyzer.constIntBound(s.extent).min >= 1) this.analyzer.bind(s.loopVar, range(s.min, s.extent), true);
    return super.visitFor(s);
  }

  private visitAttr(s: AttrStmt): Stmt {
    if (isThreadExtent(s) && s.value.kind === "IntImm" && s.value.value >= 1) this.analyzer.bind(s.node, rangeFromExtent(s.value.value), true);
    switch (s.key) {
      case ASYNC_SCOPE:
        return this.visitAsyncScope(s);
      case ASYNC_COMMIT_QUEUE_SCOPE: {
        this.requireOutsideAsyncScope(s);
        this.useQueue(s);
        const outer = this.inCommitScope;
        this.inCommitScope = true;
        const out = super.visitStmt(s);
        this.inCommitScope = outer;
        return out;
      }
      case ASYNC_WAIT_QUEUE_SCOPE:
        this.requireOutsideAsyncScope(s);
        this.useQueue(s);
        try {
          asyncWaitOf(s);
        } catch (err) {
          if (err instanceof IRError) throw new LoweringError(PASS, err.message);
          throw err;
        }
        return super.visitStmt(s);
      default:
        return super.visitStmt(s);
    }
  }

  private visitAsyncScope(s: AttrStmt): Stmt {
    if (this.inAsyncScope) throw new LoweringError(PASS, "async_scope inside another async_scope; nested async scopes are not supported");
    if (!this.inCommitScope) {
      throw new LoweringError(PASS, `async_scope outside every ${ASYNC_COMMIT_QUEUE_SCOPE}: its copies would never be committed and waited for`);
    }
    this.inAsyncScope = true;
    try {
      return this.visitStmt(s.body);
    } finally {
      this.inAsyncScope = false;
    }
  }

  private requireOutsideAsyncScope(s: AttrStmt): void {
    if (this.inAsyncScope) throw new LoweringError(PASS, `${s.key} inside async_scope; an async scope holds only copies`);
  }

  private useQueue(s: AttrStmt): void {
    if (s.value.kind !== "IntImm") throw new LoweringError(PASS, `${s.key} names queue ${printExpr(s.value)}; the queue must be a constant stage index`);
    const queue = s.value.value;
    if (this.queue !== undefined && this.queue !== queue) {
      throw new LoweringError(
        PASS,
        `${s.key} names queue ${queue}, but an earlier async attribute named queue ${this.queue}; CUDA has one cp.async queue ` +
          `per thread, so all asynchronous copies of a kernel must belong to one pipeline stage`,
      );
    }
    this.queue = queue;
  }

  override visitBufferStore(s: BufferStore): Stmt {
    return this.inAsyncScope ? this.asyncCopy(s) : super.visitBufferStore(s);
  }

  /** `shared[i] = global[j]` (possibly zero-filled under a predicate) as cp.async calls. */
  private asyncCopy(store: BufferStore): Stmt {
    const what = `async_scope: the store to ${store.buffer.name}`;
    const fail = (why: string): never => {
      throw new LoweringError(PASS, `${what} ${why}`);
    };
    if (!isSharedScope(store.buffer)) fail(`writes ${store.buffer.scope} memory; cp.async copies into shared memory only`);
    const { load, predicate: condition } =
      copiedLoad(store.value) ??
      fail(`stores ${printExpr(store.value)}, which is not a load from global memory (or one zero-filled under a condition); cp.async only copies`);
    if (load.buffer.scope !== "global") fail(`copies from ${load.buffer.name} in ${load.buffer.scope} memory; cp.async copies from global memory only`);
    if (store.indices.length !== 1 || load.indices.length !== 1) fail("is not flattened; injectPTXAsyncCopy runs on flat buffers");
    const dtype = elementType(store.buffer.dtype);
    if (elementType(load.buffer.dtype) !== dtype) fail(`copies ${load.buffer.dtype} elements into ${store.buffer.dtype} storage`);
    const dst =
      contiguousSpan(store.indices[0]!, store.buffer.elemOffset) ??
      fail(`has index ${printExpr(store.indices[0]!)}, which is not contiguous (a scalar or a stride-1 Ramp)`);
    const src =
      contiguousSpan(load.indices[0]!, load.buffer.elemOffset) ??
      fail(`reads ${load.buffer.name}[${printExpr(load.indices[0]!)}], which is not contiguous (a scalar or a stride-1 Ramp)`);
    // A condition that always holds needs no zero fill.
    const predicate = condition === undefined || this.analyzer.canProve(condition) ? undefined : condition;
    const elementBytes = bytesOf(dtype);
    const bytes = dst.lanes * elementBytes;
    const width = CP_ASYNC_WIDTHS.find(
      (w) => bytes % w === 0 && w % elementBytes === 0 && this.isAligned(dst.base, w / elementBytes) && this.isAligned(src.base, w / elementBytes),
    );
    if (width === undefined) {
      if (bytes < 4 || bytes % 4 !== 0)
        fail(
          `copies ${bytes} bytes (${dst.lanes} × ${dtype}); cp.async copies 4, 8 or 16 bytes — vectorize the copy so that each store moves 4, 8 or 16 bytes`,
        );
      fail(
        `copies ${bytes} bytes at ${store.buffer.name}[${printExpr(dst.base)}] from ${load.buffer.name}[${printExpr(src.base)}], which cannot be proven 4-byte aligned; a cp.async of n bytes needs n-byte aligned addresses`,
      );
    }
    const lanes = width! / elementBytes;
    const copies: Stmt[] = [];
    for (let k = 0; k < dst.lanes; k += lanes) {
      copies.push(
        evaluate(
          ptxCpAsync({
            dtype,
            dst: store.buffer.data,
            dstOffset: offsetBy(dst.base, k),
            src: load.buffer.data,
            srcOffset: offsetBy(src.base, k),
            bytes: width!,
            predicate,
          }),
        ),
      );
    }
    return copies.length === 1 ? copies[0]! : seq(copies);
  }

  private isAligned(base: PrimExpr, lanes: number): boolean {
    return lanes === 1 || this.analyzer.canProve(eq(floormod(base, lanes), 0));
  }
}

/** The global load a copy stores, and its zero-fill predicate: `load`, `if_then_else(c, load, 0)` or `Select(c, load, 0)`. */
function copiedLoad(value: PrimExpr): { load: BufferLoad; predicate: PrimExpr | undefined } | undefined {
  if (value.kind === "BufferLoad") return { load: value, predicate: undefined };
  const guarded =
    value.kind === "Select"
      ? { c: value.condition, t: value.trueValue, f: value.falseValue }
      : value.kind === "Call" && value.op === "if_then_else"
        ? { c: value.args[0]!, t: value.args[1]!, f: value.args[2]! }
        : undefined;
  if (guarded === undefined || guarded.t.kind !== "BufferLoad" || !isZero(guarded.f)) return undefined;
  const predicate = guarded.c.kind === "Broadcast" ? guarded.c.value : guarded.c;
  // A condition that differs between lanes cannot be one copy's predicate.
  if (lanesOf(predicate.dtype) !== 1) return undefined;
  return { load: guarded.t, predicate };
}

function isZero(e: PrimExpr): boolean {
  if (e.kind === "Broadcast") return isZero(e.value);
  return (e.kind === "IntImm" || e.kind === "FloatImm") && e.value === 0;
}

/** A scalar index, or a stride-1 Ramp, as its first element (plus the buffer's element offset) and lane count. */
function contiguousSpan(index: PrimExpr, elemOffset: PrimExpr): Span | undefined {
  const shift = (base: PrimExpr): PrimExpr => (elemOffset.kind === "IntImm" && elemOffset.value === 0 ? base : add(elemOffset, base));
  if (lanesOf(index.dtype) === 1) return { base: shift(index), lanes: 1 };
  if (index.kind !== "Ramp" || index.stride.kind !== "IntImm" || index.stride.value !== 1) return undefined;
  return { base: shift(index.base), lanes: index.lanes };
}

function offsetBy(base: PrimExpr, k: number): PrimExpr {
  return k === 0 ? base : add(base, intImm(k, base.dtype));
}
