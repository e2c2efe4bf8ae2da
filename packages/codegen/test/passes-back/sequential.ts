/**
 * Running a lowered kernel on the sequential executor, which runs each `thread_extent` attribute
 * as a loop over its threads. Two things keep that faithful to the GPU:
 * - no barrier inside a threadIdx scope (each scope then finishes for all threads before the next
 *   starts, as a barrier between them demands);
 * - per-thread (`local`) storage allocated outside the threadIdx scopes would be shared by the
 *   simulated threads, so `privatizeLocalStorage` gives every thread its own slice of it.
 */
import {
  type Allocate,
  type Buffer,
  type BufferLoad,
  type BufferStore,
  IRMutator,
  type PrimExpr,
  type PrimFunc,
  type Stmt,
  type Var,
  add,
  declBuffer,
  forEachStmt,
  intImm,
  mul,
  primFunc,
} from "@tessera/ir";
import type { DeviceKernel } from "../../src/lowered.js";
import { kernelFunc } from "./helpers.js";

function isBarrier(s: Stmt): boolean {
  return s.kind === "Evaluate" && s.value.kind === "Call" && s.value.op === "tvm_storage_sync";
}

function isThreadScope(s: Stmt): boolean {
  return s.kind === "AttrStmt" && s.key === "thread_extent" && s.node?.name.startsWith("threadIdx") === true;
}

/** No barrier inside a threadIdx scope. */
export function barriersBetweenThreadScopes(body: Stmt): boolean {
  let ok = true;
  forEachStmt(body, (s) => {
    if (!isThreadScope(s)) return undefined;
    forEachStmt(s, (x) => {
      if (isBarrier(x)) ok = false;
    });
    return false;
  });
  return ok;
}

/** The kernel as a function the sequential executor runs faithfully, or undefined when it cannot. */
export function sequentialForm(kernel: DeviceKernel): PrimFunc | undefined {
  if (!barriersBetweenThreadScopes(kernel.body)) return undefined;
  const f = kernelFunc(kernel);
  return primFunc(f.params, f.bufferMap, privatizeLocalStorage(kernel.body), f.attrs);
}

/** Local buffers allocated outside the threadIdx scopes get one slice per thread of the block. */
export function privatizeLocalStorage(body: Stmt): Stmt {
  const extents = new Map<string, { v: Var; extent: number }>();
  forEachStmt(body, (s) => {
    if (isThreadScope(s) && s.kind === "AttrStmt" && s.value.kind === "IntImm") extents.set(s.node!.name, { v: s.node!, extent: s.value.value });
  });
  // Linear thread id: x + X·(y + Y·z).
  let tid: PrimExpr = intImm(0);
  let stride = 1;
  for (const tag of ["threadIdx.x", "threadIdx.y", "threadIdx.z"]) {
    const t = extents.get(tag);
    if (t === undefined) continue;
    tid = add(tid, mul(t.v, stride));
    stride *= t.extent;
  }
  return new Privatizer(tid, stride).visitStmt(body);
}

class Privatizer extends IRMutator {
  private readonly slices = new Map<Var, { buffer: Buffer; size: number }>();
  private inThreadScope = false;

  constructor(
    private readonly tid: PrimExpr,
    private readonly threads: number,
  ) {
    super();
  }

  override visitStmt(s: Stmt): Stmt {
    if (isThreadScope(s)) {
      const outer = this.inThreadScope;
      this.inThreadScope = true;
      const out = super.visitStmt(s);
      this.inThreadScope = outer;
      return out;
    }
    if (s.kind === "Allocate" && s.buffer.scope === "local" && !this.inThreadScope) return this.privatize(s);
    // The allocation's own declaration (lowerOpaqueBlock writes one) declares the slices instead.
    const slice = s.kind === "DeclBuffer" ? this.slices.get(s.buffer.data) : undefined;
    if (s.kind === "DeclBuffer" && slice !== undefined) return { ...s, buffer: slice.buffer, body: this.visitStmt(s.body) };
    return super.visitStmt(s);
  }

  private privatize(s: Allocate): Stmt {
    const size = s.buffer.shape.reduce((n, e) => n * (e.kind === "IntImm" ? e.value : Number.NaN), 1);
    const buffer = declBuffer(s.buffer.name, [size * this.threads], s.buffer.dtype, { scope: "local" });
    this.slices.set(s.buffer.data, { buffer, size });
    return { ...s, buffer, body: this.visitStmt(s.body) };
  }

  override visitBufferLoad(e: BufferLoad): PrimExpr {
    const load = super.visitBufferLoad(e) as BufferLoad;
    const slice = this.slices.get(load.buffer.data);
    return slice === undefined ? load : { ...load, buffer: slice.buffer, indices: [add(mul(this.tid, slice.size), load.indices[0]!)] };
  }

  override visitBufferStore(s: BufferStore): Stmt {
    const store = super.visitBufferStore(s) as BufferStore;
    const slice = this.slices.get(store.buffer.data);
    return slice === undefined ? store : { ...store, buffer: slice.buffer, indices: [add(mul(this.tid, slice.size), store.indices[0]!)] };
  }
}
