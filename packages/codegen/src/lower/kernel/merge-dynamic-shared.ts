/**
 * A kernel's `shared.dyn` allocations as one (TVM's MergeDynamicSharedMemoryAllocations): CUDA
 * has one `extern __shared__` array per kernel, so every dynamic shared buffer becomes a slice of
 * `buf_dyn_shmem` at an offset aligned to 16 bytes (accesses and `T.ptx_cp_async` destinations
 * shifted by it), allocated once inside the kernel's launch attributes. Runs on a kernel body
 * after lowering (flat buffers). The slices do not overlap: buffers live at once are not merged
 * by lifetime, as TVM's liveness-based reuse would.
 */
import {
  type Buffer,
  type BufferLoad,
  type BufferStore,
  type PrimExpr,
  type Stmt,
  type Var,
  IRMutator,
  add,
  allocate,
  asAsyncCopy,
  bytesOf,
  call,
  constantSize,
  declBuffer,
  forEachStmt,
  intImm,
  ptxCpAsync,
  ramp,
} from "@tessera/ir";
import { THREAD_EXTENT } from "./thread-env.js";
import { allocationBody } from "../util/flat-allocation.js";

type Fail = (detail: string) => never;

/** Where merged slices start: 16 bytes, the widest vector access (float4, cp.async of 16). */
const SLICE_ALIGN_BYTES = 16;
export const MERGED_DYNAMIC_SHARED = "buf_dyn_shmem";

/** The body with at most one `shared.dyn` allocation, and its bytes (0 when none). */
export function mergeDynamicSharedAllocations(body: Stmt, fail: Fail): { body: Stmt; dynamicSharedBytes: number } {
  const buffers: Buffer[] = [];
  forEachStmt(body, (s) => {
    if (s.kind === "Allocate" && s.buffer.scope === "shared.dyn") buffers.push(s.buffer);
  });
  if (buffers.length === 0) return { body, dynamicSharedBytes: 0 };
  const dtype = buffers[0]!.dtype;
  const sizes = buffers.map((b) => {
    const n = constantSize(b);
    if (n === undefined) fail(`shared.dyn buffer ${b.name} has a symbolic size; dynamic shared memory is sized at compile time here`);
    if (b.dtype !== dtype)
      fail(
        `shared.dyn buffers ${buffers[0]!.name} (${dtype}) and ${b.name} (${b.dtype}) hold different element types; they cannot share one dynamic allocation`,
      );
    return n!;
  });
  if (buffers.length === 1) return { body, dynamicSharedBytes: sizes[0]! * bytesOf(dtype) };
  const align = Math.max(1, SLICE_ALIGN_BYTES / bytesOf(dtype));
  const offsets = new Map<Var, number>();
  let total = 0;
  buffers.forEach((b, i) => {
    total = Math.ceil(total / align) * align;
    offsets.set(b.data, total);
    total += sizes[i]!;
  });
  const merged = declBuffer(MERGED_DYNAMIC_SHARED, [total], dtype, { scope: "shared.dyn" });
  const rewritten = new SliceRewriter(merged, offsets, fail).visitStmt(body);
  return { body: allocateInsideLaunch(rewritten, merged), dynamicSharedBytes: total * bytesOf(dtype) };
}

class SliceRewriter extends IRMutator {
  constructor(
    private readonly merged: Buffer,
    private readonly offsets: ReadonlyMap<Var, number>,
    private readonly fail: Fail,
  ) {
    super();
  }

  override visitStmt(s: Stmt): Stmt {
    if (s.kind === "Allocate" && this.offsets.has(s.buffer.data)) return this.visitStmt(allocationBody(s));
    if (s.kind === "DeclBuffer" && this.offsets.has(s.buffer.data))
      this.fail(`shared.dyn buffer ${s.buffer.name} is declared again (DeclBuffer); merging it is not supported`);
    return super.visitStmt(s);
  }

  override visitExpr(e: PrimExpr): PrimExpr {
    const copy = asAsyncCopy(e);
    if (copy !== undefined) {
      const at = this.offsets.get(copy.dst);
      const moved = at === undefined ? copy : { ...copy, dst: this.merged.data, dstOffset: shifted(copy.dstOffset, at) };
      return ptxCpAsync({
        ...moved,
        srcOffset: this.visitExpr(moved.srcOffset),
        dstOffset: this.visitExpr(moved.dstOffset),
        ...(moved.predicate === undefined ? {} : { predicate: this.visitExpr(moved.predicate) }),
      });
    }
    // A pointer into a slice (a tensor intrinsic's operand, e.g. ldmatrix's source) points into the merged buffer.
    if (e.kind === "Call" && e.op === "tvm_access_ptr") {
      const data = e.args[1];
      const at = data?.kind === "Var" ? this.offsets.get(data) : undefined;
      if (at !== undefined) {
        const [type, , offset, extent, mask] = e.args;
        return call(e.dtype, e.op, [type!, this.merged.data, shifted(this.visitExpr(offset!), at), this.visitExpr(extent!), mask!]);
      }
    }
    return super.visitExpr(e);
  }

  override visitVar(v: Var): PrimExpr {
    if (this.offsets.has(v)) this.fail(`the data of shared.dyn buffer ${v.name} is used other than by loads, stores and cp.async; it cannot be merged`);
    return v;
  }

  override visitBufferLoad(e: BufferLoad): PrimExpr {
    const at = this.offsets.get(e.buffer.data);
    if (at === undefined) return super.visitBufferLoad(e);
    return { kind: "BufferLoad", dtype: e.dtype, buffer: this.merged, indices: [shifted(this.flatIndex(e.buffer, this.visitExprList(e.indices)), at)] };
  }

  override visitBufferStore(s: BufferStore): Stmt {
    const at = this.offsets.get(s.buffer.data);
    if (at === undefined) return super.visitBufferStore(s);
    return {
      kind: "BufferStore",
      buffer: this.merged,
      value: this.visitExpr(s.value),
      indices: [shifted(this.flatIndex(s.buffer, this.visitExprList(s.indices)), at)],
    };
  }

  private flatIndex(buffer: Buffer, indices: readonly PrimExpr[]): PrimExpr {
    if (indices.length !== 1) this.fail(`shared.dyn buffer ${buffer.name} is accessed with ${indices.length} indices; merging runs on flattened buffers`);
    return indices[0]!;
  }
}

/** `index + at`, keeping a Ramp a Ramp (its base moves). */
function shifted(index: PrimExpr, at: number): PrimExpr {
  if (at === 0) return index;
  if (index.kind === "Ramp") return ramp(add(index.base, intImm(at, index.base.dtype)), index.stride, index.lanes);
  return add(index, intImm(at, index.dtype));
}

/** The allocation wrapped around the body of the kernel's launch attributes (thread extents). */
function allocateInsideLaunch(body: Stmt, merged: Buffer): Stmt {
  if (body.kind === "AttrStmt" && body.key === THREAD_EXTENT) return { ...body, body: allocateInsideLaunch(body.body, merged) };
  return allocate(merged, body);
}
