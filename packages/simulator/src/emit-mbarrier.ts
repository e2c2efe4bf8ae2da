/**
 * JavaScript for the mbarrier and bulk-copy ops of a lowered kernel (ir's mbarrier.ts): each calls
 * the block's mbarrier runtime (`$rt.mbar`, mbarrier-runtime.ts); a wait retries, yielding
 * `MBARRIER_YIELD` so that the block runner runs other threads, until its phase has completed.
 */
import {
  type Call,
  CP_ASYNC_BULK,
  CP_ASYNC_MBARRIER_ARRIVE,
  FENCE_PROXY_ASYNC,
  MBARRIER_ARRIVE,
  MBARRIER_ARRIVE_EXPECT_TX,
  MBARRIER_INIT,
  MBARRIER_OP_ARITY,
  MBARRIER_WAIT_PARITY,
  type Stmt,
  bytesOf,
  forEachExpr,
  printExpr,
} from "@tessera/ir";
import { type EmitContext, emitExpr } from "@tessera/ir/executor-kit";
import { type PointerJs, accessPointerJs } from "./access-pointer.js";
import { SimulationError } from "./errors.js";
import { MBARRIER_YIELD } from "./mbarrier-runtime.js";

/** Whether the kernel issues copies that complete on mbarriers (its shared accesses are then checked against them). */
export function usesBulkCopies(body: Stmt): boolean {
  let found = false;
  forEachExpr(body, (e) => {
    if (e.kind === "Call" && (e.op === CP_ASYNC_BULK || e.op === CP_ASYNC_MBARRIER_ARRIVE)) found = true;
  });
  return found;
}

/** Emits `call` when it is an mbarrier or bulk-copy op; false otherwise. */
export function emitMbarrierCall(kernel: string, ctx: EmitContext, call: Call): boolean {
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
