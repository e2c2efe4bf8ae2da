/**
 * mbarriers and bulk asynchronous copies (ir's mbarrier.ts) in CUDA C, as inline PTX on shared
 * addresses (`__cvta_generic_to_shared`):
 * - `T.ptx.mbarrier_init(bar, count)` → `mbarrier.init.shared::cta.b64`, then
 *   `fence.mbarrier_init.release.cluster` (the init is visible to the async proxy's complete_tx);
 * - `T.ptx.mbarrier_arrive(bar)` → `mbarrier.arrive.shared::cta.b64 _, [bar]`;
 * - `T.ptx.mbarrier_arrive_expect_tx(bar, bytes)` → `mbarrier.arrive.expect_tx.shared::cta.b64`;
 * - `T.ptx.mbarrier_wait_parity(bar, parity)` → `mbarrier.try_wait.parity.shared::cta.b64` until
 *   it answers true (try_wait suspends the thread for a while on its own);
 * - `T.ptx.cp_async_bulk(dst, src, bytes, bar)` →
 *   `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`;
 * - `T.ptx.cp_async_mbarrier_arrive(bar)` → `cp.async.mbarrier.arrive.noinc.shared::cta.b64`;
 * - `T.ptx.fence_proxy_async()` → `fence.proxy.async.shared::cta`.
 * All need sm_90 (transaction counts and bulk copies); module.ts refuses older targets.
 */
import {
  BULK_COPY_ALIGNMENT,
  CP_ASYNC_BULK,
  CP_ASYNC_MBARRIER_ARRIVE,
  FENCE_PROXY_ASYNC,
  type Call,
  MBARRIER_ARRIVE,
  MBARRIER_ARRIVE_EXPECT_TX,
  MBARRIER_INIT,
  MBARRIER_OP_ARITY,
} from "@tessera/ir";
import { guarded } from "./async-copy.js";
import { type EmitContext, fail } from "./context.js";
import type { ExprEmitter } from "./expr-emitter.js";
import { accessPointer } from "./wmma.js";

export type MbarrierFeature = "mbarrier";

/** The architecture the ops need. */
export const MBARRIER_MIN_ARCH = 90;

/** The C statement of an mbarrier or bulk-copy call. */
export function mbarrierStatement(ctx: EmitContext, exprs: ExprEmitter, call: Call): string {
  const arity = MBARRIER_OP_ARITY[call.op]!;
  if (call.args.length !== arity) fail(ctx, `T.${call.op} takes ${arity} arguments, got ${call.args.length}`);
  ctx.features.add("mbarrier");
  const pointer = (i: number, dtype: string | undefined): string => {
    const e = call.args[i]!;
    const type = e.kind === "Call" && e.op === "tvm_access_ptr" ? e.args[0] : undefined;
    const held = type?.kind === "Call" && type.op === "type_annotation" ? type.dtype : undefined;
    if (dtype !== undefined && held !== undefined && held !== dtype)
      fail(ctx, `T.${call.op}: argument ${i} must point to a ${dtype} mbarrier, got a T.tvm_access_ptr of ${held}`);
    return accessPointer(ctx, exprs, e, call.op);
  };
  const value = (i: number): string => exprs.expr(call.args[i]!);
  switch (call.op) {
    case MBARRIER_INIT:
      return `tessera_mbarrier_init(${pointer(0, "uint64")}, ${value(1)});`;
    case MBARRIER_ARRIVE:
      return `tessera_mbarrier_arrive(${pointer(0, "uint64")});`;
    case MBARRIER_ARRIVE_EXPECT_TX:
      return `tessera_mbarrier_arrive_expect_tx(${pointer(0, "uint64")}, ${value(1)});`;
    case CP_ASYNC_MBARRIER_ARRIVE:
      return `tessera_cp_async_mbarrier_arrive(${pointer(0, "uint64")});`;
    case FENCE_PROXY_ASYNC:
      return "tessera_fence_proxy_async();";
    case CP_ASYNC_BULK: {
      const bytes = call.args[2]!;
      if (bytes.kind === "IntImm" && (bytes.value <= 0 || bytes.value % BULK_COPY_ALIGNMENT !== 0))
        fail(ctx, `T.${call.op}: a bulk copy moves a positive multiple of ${BULK_COPY_ALIGNMENT} bytes, got ${bytes.value}`);
      return `tessera_cp_async_bulk(${pointer(0, undefined)}, ${pointer(1, undefined)}, ${value(2)}, ${pointer(3, "uint64")});`;
    }
    default:
      return `tessera_mbarrier_wait_parity(${pointer(0, "uint64")}, ${value(1)});`;
  }
}

const HELPERS = guarded("TESSERA_MBARRIER_DEFINED", [
  "// mbarriers and bulk asynchronous copies (sm_90): every pointer is generic, into shared memory (or global for the source).",
  "__device__ __forceinline__ unsigned int tessera_shared_address(const void* p) { return static_cast<unsigned int>(__cvta_generic_to_shared(p)); }",
  "__device__ __forceinline__ void tessera_mbarrier_init(void* bar, unsigned int count) {",
  '  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\\n" :: "r"(tessera_shared_address(bar)), "r"(count) : "memory");',
  '  asm volatile("fence.mbarrier_init.release.cluster;\\n" ::: "memory");',
  "}",
  "__device__ __forceinline__ void tessera_mbarrier_arrive(void* bar) {",
  '  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\\n" :: "r"(tessera_shared_address(bar)) : "memory");',
  "}",
  "__device__ __forceinline__ void tessera_mbarrier_arrive_expect_tx(void* bar, unsigned int bytes) {",
  '  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\\n" :: "r"(tessera_shared_address(bar)), "r"(bytes) : "memory");',
  "}",
  "// Blocks until the phase of parity `parity` has completed.",
  "__device__ __forceinline__ void tessera_mbarrier_wait_parity(void* bar, unsigned int parity) {",
  "  unsigned int address = tessera_shared_address(bar), done;",
  "  do {",
  '    asm volatile("{\\n.reg .pred p;\\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\\nselp.u32 %0, 1, 0, p;\\n}\\n"',
  '                 : "=r"(done) : "r"(address), "r"(parity) : "memory");',
  "  } while (done == 0);",
  "}",
  "// One arrival on `bar` once the thread's cp.async copies issued so far have completed (counted against the init count).",
  "__device__ __forceinline__ void tessera_cp_async_mbarrier_arrive(void* bar) {",
  '  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\\n" :: "r"(tessera_shared_address(bar)) : "memory");',
  "}",
  "// Generic-proxy writes to shared memory seen by this thread's later async-proxy reads (wgmma).",
  '__device__ __forceinline__ void tessera_fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\\n" ::: "memory"); }',
  "// `bytes` (a multiple of 16) from global `src` to shared `dst`, both 16-byte aligned; completion counts against `bar`.",
  "__device__ __forceinline__ void tessera_cp_async_bulk(void* dst, const void* src, unsigned int bytes, void* bar) {",
  '  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\\n"',
  '               :: "r"(tessera_shared_address(dst)), "l"(src), "r"(bytes), "r"(tessera_shared_address(bar)) : "memory");',
  "}",
]);

/** The helper definitions, when a kernel uses the ops. */
export function mbarrierPreamble(has: (f: MbarrierFeature) => boolean): string[] {
  return has("mbarrier") ? [HELPERS] : [];
}

/** Whether a kernel's features include the mbarrier ops (sm_90). */
export function usesMbarrier(features: ReadonlySet<string>): boolean {
  return features.has("mbarrier");
}
