/**
 * Hopper's warpgroup MMA (sm_90a) in CUDA C, as inline PTX:
 * - `T.ptx.wgmma_fence()` → `wgmma.fence.sync.aligned`;
 * - `T.ptx.wgmma_mma_async_ss(shape, "fp16", "fp16", "fp32", trans_a, trans_b, swizzle_bytes,
 *   A_ptr, a_lbo, a_sbo, B_ptr, b_lbo, b_sbo, C, c_off)` →
 *   `tessera_wgmma_m64n<N>k16_f32_f16_f16(C + c_off, A_ptr, a_lbo, a_sbo, B_ptr, b_lbo, b_sbo, trans_b)`:
 *   builds the two 64-bit matrix descriptors (start address >> 4, LBO >> 4 at bit 16, SBO >> 4 at
 *   bit 32, the swizzle mode at bit 62: 1 for 128 bytes) and issues `wgmma.mma_async`. A_ptr is
 *   the calling warp's 16 rows of A (K-major, 8-row groups SBO apart): the warpgroup's A starts
 *   16·(warp mod 4) rows, 2·SBO bytes each, before it (tensor-intrin/cuda/wgmma.ts of @tessera/schedule);
 * - `T.ptx.wgmma_mma_async_ss("m64n<N>k8", "tf32", "tf32", "fp32", 0, 0, 128, …)` (the same
 *   arguments) → `tessera_wgmma_m64n<N>k8_f32_tf32_tf32(…)`: float32 operands read as tf32, both
 *   K-major (PTX has no transpose operands for 32-bit types);
 * - `T.ptx.wgmma_mma_async_rs("m64n<N>k8", "tf32", "tf32", "fp32", 0, 128, A, a_off, B_ptr, b_lbo,
 *   b_sbo, C, c_off)` → `tessera_wgmma_m64n<N>k8_f32_tf32_tf32_rs(C + c_off, A + a_off, …)`: A from
 *   the calling warp's 4 fragment registers a lane (the register-A form; its rows are the warp's),
 *   B K-major from shared memory; with a last argument scale-d 0 (foldWgmmaZeroFill) →
 *   `…_rs_zero_d(…)`, D = A·B (the accumulator registers only written);
 * - `T.ptx.wgmma_commit_group()`, `T.ptx.wgmma_wait_group(n, C, size, …)` → `wgmma.commit_group`
 *   and `wgmma.wait_group n`; the wait then marks the accumulators it names as written (an empty
 *   asm with "+f" operands), so the compiler reads them after it (injectWgmmaSync places the
 *   fences and waits).
 * The kernel's target must be sm_90 (it is compiled for sm_90a); in a kernel with wgmma,
 * `fence.proxy.async` follows each cp.async wait and, where the kernel also stores into shared
 * memory with plain stores, precedes each `__syncthreads()` (kernel-emitter.ts): it orders the
 * threads' generic-proxy writes of shared memory before the tensor cores' async-proxy reads.
 */
import { type Call, intImm } from "@tessera/ir";
import {
  WGMMA_COMMIT_GROUP,
  WGMMA_FENCE,
  WGMMA_MMA_ASYNC_RS,
  WGMMA_OP_ARITY,
  WGMMA_SCALE_D_ARG,
  WGMMA_WAIT_GROUP,
  isWgmmaMma,
  wgmmaArgCountFits,
} from "../lower/util/warp-operands.js";
import { guarded } from "./async-copy.js";
import { type EmitContext, fail } from "./context.js";
import { intArg, registers, stringArg } from "./intrinsic-args.js";
import type { ExprEmitter } from "./expr-emitter.js";
import { accessPointer } from "./wmma.js";

export type WgmmaFeature = "wgmma" | `wgmma:${number}` | `wgmma:tf32:${number}` | `wgmma:tf32rs:${number}` | `wgmma:tf32rs0:${number}`;

export const WGMMA_OPS: ReadonlySet<string> = new Set(Object.keys(WGMMA_OP_ARITY));

/** The N of m64nNk16 the generator emits (the shapes `wgmma_m64n<N>k16_f16f16f32` of @tessera/schedule use). */
const WGMMA_N: ReadonlySet<number> = new Set([64, 128, 256]);
const SWIZZLE_MODE: Readonly<Record<number, number>> = { 0: 0, 128: 1, 64: 2, 32: 3 };

/** The architecture wgmma kernels compile for. */
export const WGMMA_ARCH = "sm_90a";

/** The C statement of a wgmma intrinsic call. */
export function wgmmaStatement(ctx: EmitContext, exprs: ExprEmitter, call: Call): string {
  const arity = WGMMA_OP_ARITY[call.op]!;
  const optional = WGMMA_SCALE_D_ARG[call.op] === arity ? ` (or ${arity + 1} with scale-d)` : "";
  if (!wgmmaArgCountFits(call.op, call.args.length))
    fail(ctx, `T.${call.op} takes ${arity >= 0 ? `${arity}${optional}` : "a count and (accumulator, size) pairs:"} arguments, got ${call.args.length}`);
  ctx.features.add("wgmma");
  switch (call.op) {
    case WGMMA_FENCE:
      return "tessera_wgmma_fence();";
    case WGMMA_COMMIT_GROUP:
      return "tessera_wgmma_commit_group();";
    case WGMMA_WAIT_GROUP: {
      const n = intArg(ctx, call, 0);
      if (n < 0 || n > 7) fail(ctx, `T.${call.op}: wgmma.wait_group takes 0 to 7 pending groups, not ${n}`);
      const written: string[] = [];
      for (let i = 1; i < call.args.length; i += 2) {
        const c = registers(ctx, exprs, call.args[i], intImm(0), call.op);
        written.push(`tessera_wgmma_written<${intArg(ctx, call, i + 1)}>(${c});`);
      }
      return [`tessera_wgmma_wait_group<${n}>();`, ...written].join(" ");
    }
    case WGMMA_MMA_ASYNC_RS:
      return mmaAsyncRegisterA(ctx, exprs, call);
    default:
      return mmaAsync(ctx, exprs, call);
  }
}

/** `wgmma_mma_async_rs`: m64nNk8 tf32 with A from the warp's registers, B K-major from shared memory. */
function mmaAsyncRegisterA(ctx: EmitContext, exprs: ExprEmitter, call: Call): string {
  const [shape, ta, tb, tc] = [0, 1, 2, 3].map((i) => stringArg(ctx, call, i)) as [string, string, string, string];
  const n = Number(/^m64n(\d+)k8$/.exec(shape)?.[1] ?? Number.NaN);
  if (!WGMMA_N.has(n) || ta !== "tf32" || tb !== "tf32" || tc !== "fp32")
    fail(ctx, `T.${call.op}: only m64n{${[...WGMMA_N].join(",")}}k8 tf32 × tf32 → fp32 takes A from registers here, got ${shape} ${ta} × ${tb} → ${tc}`);
  if (intArg(ctx, call, 4) !== 0) fail(ctx, `T.${call.op}: tf32 B must be K-major (trans_b 0): PTX has no transpose for 32-bit operands`);
  if (SWIZZLE_MODE[intArg(ctx, call, 5)!] !== 1) fail(ctx, `T.${call.op}: only the 128-byte swizzle is supported, got ${intArg(ctx, call, 5)}`);
  const scaleD = call.args.length > 13 ? intArg(ctx, call, 13) : 1;
  if (scaleD !== 0 && scaleD !== 1) fail(ctx, `T.${call.op}: scale-d is 0 or 1, not ${scaleD}`);
  ctx.features.add(scaleD === 0 ? `wgmma:tf32rs0:${n}` : `wgmma:tf32rs:${n}`);
  const a = registers(ctx, exprs, call.args[6], call.args[7]!, call.op);
  const c = registers(ctx, exprs, call.args[11], call.args[12]!, call.op);
  const b = accessPointer(ctx, exprs, call.args[8]!, call.op);
  const name = `tessera_wgmma_m64n${n}k8_f32_tf32_tf32_rs${scaleD === 0 ? "_zero_d" : ""}`;
  return `${name}(${c}, ${a}, ${b}, ${exprs.expr(call.args[9]!)}, ${exprs.expr(call.args[10]!)});`;
}

function mmaAsync(ctx: EmitContext, exprs: ExprEmitter, call: Call): string {
  const [shape, ta, tb, tc] = [0, 1, 2, 3].map((i) => stringArg(ctx, call, i)) as [string, string, string, string];
  const m = /^m64n(\d+)k(8|16)$/.exec(shape);
  const [n, k] = [Number(m?.[1] ?? Number.NaN), Number(m?.[2] ?? Number.NaN)];
  if (!WGMMA_N.has(n)) fail(ctx, `T.${call.op}: shape ${shape} is not one of m64n{${[...WGMMA_N].join(",")}}k16 (fp16) or …k8 (tf32)`);
  const tf32 = ta === "tf32" && tb === "tf32" && tc === "fp32" && k === 8;
  if (!tf32 && !(ta === "fp16" && tb === "fp16" && tc === "fp32" && k === 16))
    fail(ctx, `T.${call.op}: only m64nNk16 fp16 × fp16 → fp32 and m64nNk8 tf32 × tf32 → fp32 exist here, got ${shape} ${ta} × ${tb} → ${tc}`);
  const [transA, transB, swizzle] = [4, 5, 6].map((i) => intArg(ctx, call, i));
  if (transA !== 0) fail(ctx, `T.${call.op}: A must be K-major (trans_a 0)`);
  if (tf32 && transB !== 0) fail(ctx, `T.${call.op}: tf32 B must be K-major (trans_b 0): PTX has no transpose for 32-bit operands`);
  if (SWIZZLE_MODE[swizzle!] !== 1) fail(ctx, `T.${call.op}: only the 128-byte swizzle is supported, got ${swizzle}`);
  ctx.features.add(tf32 ? `wgmma:tf32:${n}` : `wgmma:${n}`);
  const pointer = (i: number) => accessPointer(ctx, exprs, call.args[i]!, call.op);
  const bytes = (i: number) => exprs.expr(call.args[i]!);
  const c = registers(ctx, exprs, call.args[13], call.args[14]!, call.op);
  const operands = `${c}, ${pointer(7)}, ${bytes(8)}, ${bytes(9)}, ${pointer(10)}, ${bytes(11)}, ${bytes(12)}`;
  if (tf32) return `tessera_wgmma_m64n${n}k8_f32_tf32_tf32(${operands});`;
  return `tessera_wgmma_m64n${n}k16_f32_f16_f16(${operands}, ${transB === 0 ? "false" : "true"});`;
}

const COMMON = guarded("TESSERA_WGMMA_COMMON_DEFINED", [
  "// wgmma (sm_90a): a 64-bit shared-memory matrix descriptor: start address, leading and stride byte",
  "// offsets (each >> 4, 14 bits), swizzle mode at bit 62 (1: 128 bytes).",
  "__device__ __forceinline__ unsigned long long tessera_wgmma_desc(const void* smem, unsigned int lbo, unsigned int sbo) {",
  "  unsigned long long address = static_cast<unsigned int>(__cvta_generic_to_shared(smem));",
  "  return ((address & 0x3FFFF) >> 4) | (static_cast<unsigned long long>((lbo & 0x3FFFF) >> 4) << 16) |",
  "         (static_cast<unsigned long long>((sbo & 0x3FFFF) >> 4) << 32) | (1ull << 62);",
  "}",
  "// The calling warp's rank in its warpgroup (4 consecutive warps).",
  "__device__ __forceinline__ unsigned int tessera_warpgroup_rank() {",
  "  return ((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) >> 5) & 3;",
  "}",
  '__device__ __forceinline__ void tessera_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory"); }',
  '__device__ __forceinline__ void tessera_wgmma_commit_group() { asm volatile("wgmma.commit_group.sync.aligned;\\n" ::: "memory"); }',
  "template <int N>",
  '__device__ __forceinline__ void tessera_wgmma_wait_group() { asm volatile("wgmma.wait_group.sync.aligned %0;\\n" :: "n"(N) : "memory"); }',
  "// After a wait: the accumulator registers were written by the tensor cores (the compiler must not read them earlier).",
  "template <int N>",
  "__device__ __forceinline__ void tessera_wgmma_written(float* c) {",
  "#pragma unroll",
  '  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(c[i]) :: "memory");',
  "}",
]);

function mmaHelper(n: number): string {
  const count = n / 2;
  const cs = Array.from({ length: count }, (_, i) => `%${i}`).join(", ");
  const outs = Array.from({ length: count }, (_, i) => `"+f"(c[${i}])`).join(", ");
  const [descA, descB] = [count, count + 1];
  return guarded(`TESSERA_WGMMA_M64N${n}K16_DEFINED`, [
    `// wgmma.mma_async m64n${n}k16 (sm_90a): the warpgroup's 64×${n} fp32 accumulator += A (64×16 fp16, K-major) · B (16×${n} fp16),`,
    "// both from 128B-swizzled shared memory. a_warp: the calling warp's 16 rows of A; c: its " + `${count} accumulator registers.`,
    `__device__ __forceinline__ void tessera_wgmma_m64n${n}k16_f32_f16_f16(float* c, const void* a_warp, unsigned int a_lbo, unsigned int a_sbo,`,
    "                                                              const void* b, unsigned int b_lbo, unsigned int b_sbo, bool trans_b) {",
    "  const char* a = static_cast<const char*>(a_warp) - tessera_warpgroup_rank() * 2 * a_sbo;",
    "  unsigned long long desc_a = tessera_wgmma_desc(a, a_lbo, a_sbo);",
    "  unsigned long long desc_b = tessera_wgmma_desc(b, b_lbo, b_sbo);",
    "  if (trans_b) {",
    `    asm volatile("{\\n.reg .pred p;\\nsetp.ne.b32 p, 1, 0;\\nwgmma.mma_async.sync.aligned.m64n${n}k16.f32.f16.f16 {${cs}}, %${descA}, %${descB}, p, 1, 1, 0, 1;\\n}\\n"`,
    `                 : ${outs}`,
    `                 : "l"(desc_a), "l"(desc_b));`,
    "  } else {",
    `    asm volatile("{\\n.reg .pred p;\\nsetp.ne.b32 p, 1, 0;\\nwgmma.mma_async.sync.aligned.m64n${n}k16.f32.f16.f16 {${cs}}, %${descA}, %${descB}, p, 1, 1, 0, 0;\\n}\\n"`,
    `                 : ${outs}`,
    `                 : "l"(desc_a), "l"(desc_b));`,
    "  }",
    "}",
  ]);
}

function tf32MmaHelper(n: number): string {
  const count = n / 2;
  const cs = Array.from({ length: count }, (_, i) => `%${i}`).join(", ");
  const outs = Array.from({ length: count }, (_, i) => `"+f"(c[${i}])`).join(", ");
  return guarded(`TESSERA_WGMMA_M64N${n}K8_TF32_DEFINED`, [
    `// wgmma.mma_async m64n${n}k8 tf32 (sm_90a): the warpgroup's 64×${n} fp32 accumulator += A (64×8) · B (8×${n}), float32 holding tf32`,
    "// values, both K-major (B as Bᵀ, n rows of k) in 128B-swizzled shared memory. a_warp: the calling warp's 16 rows of A.",
    `__device__ __forceinline__ void tessera_wgmma_m64n${n}k8_f32_tf32_tf32(float* c, const void* a_warp, unsigned int a_lbo, unsigned int a_sbo,`,
    "                                                                const void* b, unsigned int b_lbo, unsigned int b_sbo) {",
    "  const char* a = static_cast<const char*>(a_warp) - tessera_warpgroup_rank() * 2 * a_sbo;",
    "  unsigned long long desc_a = tessera_wgmma_desc(a, a_lbo, a_sbo);",
    "  unsigned long long desc_b = tessera_wgmma_desc(b, b_lbo, b_sbo);",
    `  asm volatile("{\\n.reg .pred p;\\nsetp.ne.b32 p, 1, 0;\\nwgmma.mma_async.sync.aligned.m64n${n}k8.f32.tf32.tf32 {${cs}}, %${count}, %${count + 1}, p, 1, 1;\\n}\\n"`,
    `               : ${outs}`,
    `               : "l"(desc_a), "l"(desc_b));`,
    "}",
  ]);
}

function tf32RegisterAMmaHelper(n: number, scaleD: 0 | 1 = 1): string {
  const count = n / 2;
  const cs = Array.from({ length: count }, (_, i) => `%${i}`).join(", ");
  // scale-d 0: the accumulator is only written ("=f"), not read.
  const outs = Array.from({ length: count }, (_, i) => `"${scaleD === 0 ? "=" : "+"}f"(c[${i}])`).join(", ");
  const as = [0, 1, 2, 3].map((i) => `%${count + i}`).join(", ");
  const [suffix, guard] = scaleD === 0 ? ["_zero_d", "_ZERO_D"] : ["", ""];
  return guarded(`TESSERA_WGMMA_M64N${n}K8_TF32_RS${guard}_DEFINED`, [
    scaleD === 0
      ? `// wgmma.mma_async m64n${n}k8 tf32 with A from registers and scale-d 0 (sm_90a): the warpgroup's 64×${n} fp32 accumulator = A (64×8) · B (8×${n}).`
      : `// wgmma.mma_async m64n${n}k8 tf32 with A from registers (sm_90a): the warpgroup's 64×${n} fp32 accumulator += A (64×8) · B (8×${n}).`,
    "// a: the calling warp's 4 fragment registers (rows l/4 + 8·(i%2), k l%4 + 4·(i/2) of its 16 rows), float32 holding tf32;",
    "// B K-major (Bᵀ, n rows of k) in 128B-swizzled shared memory. The tensor cores read a and c until the group's wait.",
    `__device__ __forceinline__ void tessera_wgmma_m64n${n}k8_f32_tf32_tf32_rs${suffix}(float* c, const float* a, const void* b, unsigned int b_lbo, unsigned int b_sbo) {`,
    "  unsigned long long desc_b = tessera_wgmma_desc(b, b_lbo, b_sbo);",
    `  asm volatile("{\\n.reg .pred p;\\nsetp.ne.b32 p, ${scaleD}, 0;\\nwgmma.mma_async.sync.aligned.m64n${n}k8.f32.tf32.tf32 {${cs}}, {${as}}, %${count + 4}, p, 1, 1;\\n}\\n"`,
    `               : ${outs}`,
    `               : "r"(__float_as_uint(a[0])), "r"(__float_as_uint(a[1])), "r"(__float_as_uint(a[2])), "r"(__float_as_uint(a[3])), "l"(desc_b));`,
    "}",
  ]);
}

/** The helper definitions for the wgmma features used. */
export function wgmmaPreamble(has: (f: WgmmaFeature) => boolean): string[] {
  if (!has("wgmma")) return [];
  return [
    COMMON,
    ...[...WGMMA_N].filter((n) => has(`wgmma:${n}`)).map(mmaHelper),
    ...[...WGMMA_N].filter((n) => has(`wgmma:tf32:${n}`)).map(tf32MmaHelper),
    ...[...WGMMA_N].filter((n) => has(`wgmma:tf32rs:${n}`)).map((n) => tf32RegisterAMmaHelper(n)),
    ...[...WGMMA_N].filter((n) => has(`wgmma:tf32rs0:${n}`)).map((n) => tf32RegisterAMmaHelper(n, 0)),
  ];
}

/** Whether a kernel's features include wgmma (sm_90a). */
export function usesWgmma(features: ReadonlySet<string>): boolean {
  return features.has("wgmma");
}

/** Whether a kernel body calls wgmma (its cp.async waits then fence the async proxy). */
export function callsWgmma(op: string): boolean {
  return isWgmmaMma(op);
}
