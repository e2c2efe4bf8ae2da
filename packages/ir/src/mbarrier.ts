/**
 * Hopper's shared-memory barriers (mbarrier, sm_80+; transaction counts sm_90) and bulk
 * asynchronous copies (`cp.async.bulk`, sm_90) as opaque `T.ptx.*` intrinsics. They let one
 * producer thread stream tiles into shared memory while consumer warps wait for exactly the tile
 * they need, instead of every thread issuing 16-byte cp.async copies and meeting at block-wide
 * barriers (warp specialisation).
 *
 * An mbarrier is one element of a shared `uint64` buffer, named by a pointer
 * `T.tvm_access_ptr(T.type_annotation("uint64"), bars, i, 1, 3)`:
 * - `T.ptx.mbarrier_init(bar, count)`: phase 0 expects `count` arrivals;
 * - `T.ptx.mbarrier_arrive(bar)`: one arrival;
 * - `T.ptx.mbarrier_arrive_expect_tx(bar, bytes)`: one arrival that also makes the phase wait for
 *   `bytes` more bytes of bulk copies to complete;
 * - `T.ptx.mbarrier_wait_parity(bar, parity)`: blocks until the phase of that parity (0 or 1) has
 *   completed (`mbarrier.try_wait.parity` in a loop). Before any phase completes, the phase "before
 *   phase 0" (parity 1) counts as completed, so a producer's first wait for a free stage passes;
 * - `T.ptx.cp_async_bulk(dst, src, bytes, bar)`: copies `bytes` (a multiple of 16, both addresses
 *   16-byte aligned) from global `src` to shared `dst`; on completion the bytes count against
 *   `bar`'s transaction count (`.mbarrier::complete_tx::bytes`);
 * - `T.ptx.cp_async_mbarrier_arrive(bar)`: one arrival on `bar` once every `T.ptx_cp_async` the
 *   thread issued so far has completed (`cp.async.mbarrier.arrive.noinc`: it counts against the
 *   init count), so threads filling a stage with 16-byte cp.async copies hand it over without a
 *   block-wide barrier;
 * - `T.ptx.fence_proxy_async()`: orders the thread's view of shared memory written through the
 *   generic proxy (cp.async, stores) before its later async-proxy reads (wgmma): a consumer runs it
 *   after waiting for a stage that cp.async copies filled.
 *
 * A phase completes when its arrivals are all in and its transaction count is back at zero;
 * whoever waits for it then sees the copies' bytes. Every other order is a race (see the
 * simulator's mbarrier runtime, which lands copies as late as the rules allow).
 */
import { IRError } from "./errors.js";
import type { Call } from "./expr.js";

export const MBARRIER_INIT = "ptx.mbarrier_init";
export const MBARRIER_ARRIVE = "ptx.mbarrier_arrive";
export const MBARRIER_ARRIVE_EXPECT_TX = "ptx.mbarrier_arrive_expect_tx";
export const MBARRIER_WAIT_PARITY = "ptx.mbarrier_wait_parity";
export const CP_ASYNC_BULK = "ptx.cp_async_bulk";
export const CP_ASYNC_MBARRIER_ARRIVE = "ptx.cp_async_mbarrier_arrive";
export const FENCE_PROXY_ASYNC = "ptx.fence_proxy_async";

/** The argument count of each op. */
export const MBARRIER_OP_ARITY: Readonly<Record<string, number>> = {
  [MBARRIER_INIT]: 2,
  [MBARRIER_ARRIVE]: 1,
  [MBARRIER_ARRIVE_EXPECT_TX]: 2,
  [MBARRIER_WAIT_PARITY]: 2,
  [CP_ASYNC_BULK]: 4,
  [CP_ASYNC_MBARRIER_ARRIVE]: 1,
  [FENCE_PROXY_ASYNC]: 0,
};

/** Whether `op` is one of the mbarrier or bulk-copy ops. */
export function isMbarrierOp(op: string): boolean {
  return MBARRIER_OP_ARITY[op] !== undefined;
}

/** The alignment and size granule of a bulk copy, in bytes. */
export const BULK_COPY_ALIGNMENT = 16;

/** Throws an IRError naming the call when its argument count is wrong. */
export function checkMbarrierArity(call: Call): void {
  const arity = MBARRIER_OP_ARITY[call.op];
  if (arity !== undefined && call.args.length !== arity) throw new IRError(`T.${call.op} takes ${arity} arguments, got ${call.args.length}`);
}
