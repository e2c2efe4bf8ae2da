/**
 * cp.async (sm_80+) in CUDA C, as TVM's CUDA generator emits it: `T.ptx_cp_async` becomes an
 * inline-PTX `cp.async.ca.shared.global` (`.cg` for 16 bytes: cached in L2 only) with the shared
 * address from `__cvta_generic_to_shared`; an `async_commit_queue_scope` is followed by
 * `cp.async.commit_group`; an `async_wait_queue_scope` starts with `cp.async.wait_group N`.
 * The helpers are preamble features, so a translation unit defines only those its kernels use.
 */
import { type AsyncCopy, type PrimExpr, bytesOf } from "@tessera/ir";
import { type EmitContext, fail } from "./context.js";
import type { ExprEmitter } from "./expr-emitter.js";

export type AsyncCopyFeature = `cp_async:${number}` | `cp_async_zfill:${number}` | "cp_async_group" | "cp_async_wait_dynamic";

/** `wait_group` takes an immediate; counts known only at run time dispatch up to this one. */
const DYNAMIC_WAIT_MAX = 7;

/** The statement issuing one cp.async, e.g. `tessera_cp_async_16(A_shared + (i * 4), A + (j * 4));`. */
export function cpAsyncStatement(ctx: EmitContext, exprs: ExprEmitter, copy: AsyncCopy): string {
  const pointer = (data: AsyncCopy["dst"], offset: PrimExpr, role: string): string => {
    const storage = ctx.storage.get(data);
    if (storage === undefined) fail(ctx, `the ${role} ${data.name} of T.ptx_cp_async is neither a kernel parameter nor allocated in the kernel`);
    if (storage.dtype !== copy.dtype) fail(ctx, `T.ptx_cp_async copies ${copy.dtype} elements, but its ${role} ${storage.name} holds ${storage.dtype}`);
    if (copy.bytes > bytesOf(copy.dtype)) ctx.vectorAccessed.add(data);
    return `${storage.name} + ${exprs.expr(offset)}`;
  };
  const dst = pointer(copy.dst, copy.dstOffset, "destination");
  const src = pointer(copy.src, copy.srcOffset, "source");
  if (copy.predicate === undefined) {
    ctx.features.add(`cp_async:${copy.bytes}`);
    return `tessera_cp_async_${copy.bytes}(${dst}, ${src});`;
  }
  ctx.features.add(`cp_async_zfill:${copy.bytes}`);
  return `tessera_cp_async_zfill_${copy.bytes}(${dst}, ${src}, ${exprs.condition(copy.predicate)});`;
}

export function commitGroupStatement(ctx: EmitContext): string {
  ctx.features.add("cp_async_group");
  return "tessera_cp_async_commit_group();";
}

/** `cp.async.wait_group n`: a template argument when `n` is a constant, a run-time dispatch otherwise. */
export function waitGroupStatement(ctx: EmitContext, exprs: ExprEmitter, inflight: PrimExpr): string {
  ctx.features.add("cp_async_group");
  if (inflight.kind === "IntImm") {
    if (inflight.value < 0) fail(ctx, `async_wait_inflight_count is ${inflight.value}; it must not be negative`);
    return `tessera_cp_async_wait_group<${inflight.value}>();`;
  }
  ctx.features.add("cp_async_wait_dynamic");
  return `tessera_cp_async_wait_group_dynamic(${exprs.expr(inflight)});`;
}

const SHARED_ADDRESS = "unsigned int dst = static_cast<unsigned int>(__cvta_generic_to_shared(dst_shared));";

/** `.cg` (bypass L1) exists only for 16-byte copies. */
function cacheOperator(bytes: number): string {
  return bytes === 16 ? "cg" : "ca";
}

function copyHelper(bytes: number): string {
  return guarded(`TESSERA_CP_ASYNC_${bytes}_DEFINED`, [
    `// cp.async (sm_80+): copies ${bytes} bytes from global to shared memory without passing through`,
    "// registers; the copy is complete after a later cp.async.wait_group releases its group.",
    `__device__ __forceinline__ void tessera_cp_async_${bytes}(void* dst_shared, const void* src_global) {`,
    `  ${SHARED_ADDRESS}`,
    `  asm volatile("cp.async.${cacheOperator(bytes)}.shared.global [%0], [%1], ${bytes};\\n" :: "r"(dst), "l"(src_global) : "memory");`,
    "}",
  ]);
}

function zeroFillHelper(bytes: number): string {
  return guarded(`TESSERA_CP_ASYNC_ZFILL_${bytes}_DEFINED`, [
    `// As tessera_cp_async_${bytes}, but where the predicate is false the copy reads nothing (src-size 0)`,
    `// and fills the ${bytes} destination bytes with zeros.`,
    `__device__ __forceinline__ void tessera_cp_async_zfill_${bytes}(void* dst_shared, const void* src_global, bool predicate) {`,
    `  ${SHARED_ADDRESS}`,
    `  int src_bytes = predicate ? ${bytes} : 0;`,
    `  asm volatile("cp.async.${cacheOperator(bytes)}.shared.global [%0], [%1], ${bytes}, %2;\\n" :: "r"(dst), "l"(src_global), "r"(src_bytes) : "memory");`,
    "}",
  ]);
}

const GROUP_HELPERS = guarded("TESSERA_CP_ASYNC_GROUP_DEFINED", [
  "// Closes this thread's current group of cp.async copies.",
  "__device__ __forceinline__ void tessera_cp_async_commit_group() {",
  '  asm volatile("cp.async.commit_group;\\n" ::: "memory");',
  "}",
  "// Waits until at most N of this thread's committed cp.async groups are still in flight.",
  "template <int N>",
  "__device__ __forceinline__ void tessera_cp_async_wait_group() {",
  '  asm volatile("cp.async.wait_group %0;\\n" :: "n"(N) : "memory");',
  "}",
]);

const DYNAMIC_WAIT_HELPER = guarded("TESSERA_CP_ASYNC_WAIT_DYNAMIC_DEFINED", [
  "// cp.async.wait_group with a count known only at run time. Counts above",
  `// ${DYNAMIC_WAIT_MAX} wait for ${DYNAMIC_WAIT_MAX} (waiting for more groups than asked is always safe).`,
  "__device__ __forceinline__ void tessera_cp_async_wait_group_dynamic(int n) {",
  "  switch (n < 0 ? 0 : n) {",
  ...Array.from({ length: DYNAMIC_WAIT_MAX }, (_, k) => `    case ${k}: tessera_cp_async_wait_group<${k}>(); break;`),
  `    default: tessera_cp_async_wait_group<${DYNAMIC_WAIT_MAX}>(); break;`,
  "  }",
  "}",
]);

/** `lines` inside an include guard, so that concatenated translation units define them once. */
export function guarded(guard: string, lines: readonly string[]): string {
  return [`#ifndef ${guard}`, `#define ${guard}`, ...lines, "#endif"].join("\n");
}

/** The helper definitions for the async-copy features used, in a fixed order. */
export function asyncCopyPreamble(has: (f: AsyncCopyFeature) => boolean): string[] {
  const parts: string[] = [];
  for (const bytes of [4, 8, 16]) if (has(`cp_async:${bytes}`)) parts.push(copyHelper(bytes));
  for (const bytes of [4, 8, 16]) if (has(`cp_async_zfill:${bytes}`)) parts.push(zeroFillHelper(bytes));
  if (has("cp_async_group") || has("cp_async_wait_dynamic")) parts.push(GROUP_HELPERS);
  if (has("cp_async_wait_dynamic")) parts.push(DYNAMIC_WAIT_HELPER);
  return parts;
}

/** Whether a kernel's features include cp.async (which needs sm_80). */
export function usesAsyncCopy(features: ReadonlySet<string>): boolean {
  return [...features].some((f) => f.startsWith("cp_async"));
}
