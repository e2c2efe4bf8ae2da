/**
 * JavaScript for the mbarrier and bulk-copy ops of a lowered kernel (ir's mbarrier.ts): each calls
 * the block's mbarrier runtime (`$rt.mbar`, mbarrier-runtime.ts); a wait retries, yielding
 * `MBARRIER_YIELD` so that the block runner runs other threads, until its phase has completed.
 */
import {
  type Call,
  CP_ASYNC_BULK,
  CP_ASYNC_BULK_TENSOR_2D,
  CP_ASYNC_BULK_TENSOR_ARITY,
  CP_ASYNC_MBARRIER_ARRIVE,
  FENCE_PROXY_ASYNC,
  MBARRIER_ARRIVE,
  MBARRIER_ARRIVE_EXPECT_TX,
  MBARRIER_INIT,
  MBARRIER_OP_ARITY,
  MBARRIER_WAIT_PARITY,
  type Stmt,
  type TensorMapSpec,
  type Var,
  bytesOf,
  isSetmaxnreg,
  setmaxnregCount,
  forEachExpr,
  printExpr,
} from "@tessera/ir";
import type { DeviceKernel } from "@tessera/codegen";
import { type EmitContext, emitExpr } from "@tessera/ir/executor-kit";
import { type PointerJs, accessPointerJs } from "./access-pointer.js";
import { SimulationError } from "./errors.js";
import { MBARRIER_YIELD } from "./mbarrier-runtime.js";

/** Whether the kernel issues copies that complete on mbarriers (its shared accesses are then checked against them). */
export function usesBulkCopies(body: Stmt): boolean {
  let found = false;
  forEachExpr(body, (e) => {
    if (e.kind === "Call" && (e.op === CP_ASYNC_BULK || e.op === CP_ASYNC_MBARRIER_ARRIVE || e.op === CP_ASYNC_BULK_TENSOR_2D)) found = true;
  });
  return found;
}

/** The tensor maps of a kernel's TMA-loaded buffers, by data variable. */
export function kernelTensorMaps(kernel: DeviceKernel): Map<Var, TensorMapSpec> {
  return new Map(kernel.params.flatMap((p) => (p.kind === "buffer" && p.tensorMap !== undefined ? [[p.buffer.data, p.tensorMap] as const] : [])));
}

/** Emits `call` when it is an mbarrier, bulk-copy or TMA op; false otherwise. */
export function emitMbarrierCall(kernel: string, ctx: EmitContext, call: Call, tensorMaps: ReadonlyMap<Var, TensorMapSpec>): boolean {
  if (call.op === CP_ASYNC_BULK_TENSOR_2D) {
    emitTensorCopy(kernel, ctx, call, tensorMaps);
    return true;
  }
  if (isSetmaxnreg(call.op)) {
    // Registers are not modelled; the count is checked as the code generator checks it.
    try {
      setmaxnregCount(call);
    } catch (e) {
      throw new SimulationError(`kernel ${kernel}: ${e instanceof Error ? e.message : String(e)}`);
    }
    return true;
  }
  const arity = MBARRIER_OP_ARITY[call.op];
  if (arity === undefined) return false;
  const text = printExpr(call);
  const fail = (detail: string): never => {
    throw new SimulationError(`kernel ${kernel}: ${text}: ${detail}`);
  };
  if (call.args.length !== arity) fail(`T.${call.op} takes ${arity} arguments, got ${call.args.length}`);
  const pointer = (i: number): PointerJs => accessPointerJs(ctx, call.args[i]!) ?? fail(`argument ${i} must be a T.tvm_access_ptr into a buffer of the kernel`);
  const bar = (i: number): string => {
    const p = pointer(i);
    if (p.dtype !== "uint64") fail(`an mbarrier is a uint64 element of shared memory, not ${p.dtype}`);
    return `${p.array}, ${p.offset}`;
  };
  const value = (i: number): string => emitExpr(ctx, call.args[i]!);
  switch (call.op) {
    case MBARRIER_INIT:
      ctx.line(`$rt.mbar.init(${bar(0)}, ${value(1)});`);
      break;
    case MBARRIER_ARRIVE:
      ctx.line(`$rt.mbar.arrive(${bar(0)});`);
      break;
    case MBARRIER_ARRIVE_EXPECT_TX:
      ctx.line(`$rt.mbar.arriveExpectTx(${bar(0)}, ${value(1)});`);
      break;
    case CP_ASYNC_MBARRIER_ARRIVE:
      // The thread's cp.async copies so far leave its queue: they land when the barrier's phase completes.
      ctx.line(`$rt.mbar.arriveAfterCopies(${bar(0)}, ${ctx.asyncQueue()}.takeAll());`);
      break;
    case FENCE_PROXY_ASYNC:
      // Nothing to model: shared memory has one view here.
      break;
    case MBARRIER_WAIT_PARITY:
      ctx.line(`while (!$rt.mbar.tryWait(${bar(0)}, ${value(1)})) yield ${MBARRIER_YIELD};`);
      break;
    default: {
      const [dst, src] = [pointer(0), pointer(1)];
      if (dst.dtype !== src.dtype)
        fail(`the destination holds ${dst.dtype} and the source ${src.dtype}; a bulk copy moves bytes between buffers of one element type here`);
      ctx.line(`$rt.mbar.bulkCopy(${dst.array}, ${dst.offset}, ${src.array}, ${src.offset}, ${value(2)}, ${bytesOf(dst.dtype)}, ${bar(3)});`);
    }
  }
  return true;
}

/** `T.ptx.cp_async_bulk_tensor_2d(dst, A.data, …, c_inner, c_outer, bar)`: the block's mbarrier runtime places the box. */
function emitTensorCopy(kernel: string, ctx: EmitContext, call: Call, tensorMaps: ReadonlyMap<Var, TensorMapSpec>): void {
  const fail = (detail: string): never => {
    throw new SimulationError(`kernel ${kernel}: ${printExpr(call)}: ${detail}`);
  };
  if (call.args.length !== CP_ASYNC_BULK_TENSOR_ARITY) fail(`T.${call.op} takes ${CP_ASYNC_BULK_TENSOR_ARITY} arguments, got ${call.args.length}`);
  const source = call.args[1]!;
  const map = source.kind === "Var" ? tensorMaps.get(source) : undefined;
  const src = source.kind === "Var" ? ctx.arrayOf(source) : undefined;
  if (map === undefined || src === undefined) return fail("argument 1 must be the data of a buffer parameter the kernel has a tensor map of");
  const dst = accessPointerJs(ctx, call.args[0]!) ?? fail("argument 0 must be a T.tvm_access_ptr into shared memory");
  if (dst.dtype !== map.dtype) fail(`the destination holds ${dst.dtype} and buffer ${map.buffer} ${map.dtype}`);
  const bar = accessPointerJs(ctx, call.args[7]!);
  if (bar === undefined || bar.dtype !== "uint64") fail("argument 7 must point to a uint64 mbarrier in shared memory");
  const mapJs = JSON.stringify({ buffer: map.buffer, shape: map.shape, rowStride: map.rowStride, box: map.box, swizzle: map.swizzle });
  const [inner, outer] = [emitExpr(ctx, call.args[5]!), emitExpr(ctx, call.args[6]!)];
  ctx.line(`$rt.mbar.tensorCopy(${dst.array}, ${dst.offset}, ${src}, ${mapJs}, ${inner}, ${outer}, ${bytesOf(dst.dtype)}, ${bar!.array}, ${bar!.offset});`);
}
