/**
 * mma.sync and ldmatrix (sm_80+) in CUDA C, as inline PTX (TVM's codegen_cuda emits the same
 * instructions): after lowerWarpMemory each thread's fragment registers are a `local` array, and
 * - `T.ptx_legacy.ldmatrix(trans, num, ".b16", dst, off, smem_ptr, smem_off)` →
 *   `tessera_ldmatrix_x<num>[_trans](dst + off, smem_ptr + smem_off)`;
 * - `T.ptx_legacy.mma(shape, "row", "col", ta, tb, tc, A, a, B, b, C, c, False)` →
 *   `tessera_mma_<shape>_<ta><tb><tc>(C + c, A + a, B + b)` (C += A·B in place);
 * - `T.cuda.mma_fill_legacy(n, C, c)` → `n` zero stores;
 * - `T.cuda.mma_store_legacy(16, 16, dst_ptr, W, w, stride)` → `tessera_mma_store_16x16(dst, W + w, stride)`,
 *   each lane writing its 8 accumulator registers where the m16n8k16 layout puts them (float32
 *   registers: `tessera_mma_store_16x16_f32` to a float32 tile, `…_f32_to_f16` to a float16 one,
 *   rounding each once; both write a lane's two adjacent columns as one vector);
 * - `T.cuda.mma_tf32x3(A_hi, a, A_lo, a, B_hi, b, B_lo, b, C, c)` →
 *   `tessera_mma_m16n8k8_tf32x3(…)`: C += lo·hi, C += hi·lo, C += hi·hi (three m16n8k8 into one
 *   accumulator, the 3xTF32 GEMM's chunk of k).
 * tf32 operands are float32 registers that already hold tf32 values (the tf32 fragment loads
 * round them with `cvt.rna.tf32.f32`, once per element loaded rather than once per MMA that reads it).
 */
import type { Call, PrimExpr } from "@tessera/ir";
import { MMA_FILL, MMA_TF32X3, PTX_LDMATRIX, PTX_MMA, WARP_OP_ARITY } from "../lower/util/warp-operands.js";
import { guarded } from "./async-copy.js";
import { type EmitContext, fail } from "./context.js";
import { boolArg, intArg, registers, stringArg } from "./intrinsic-args.js";
import type { ExprEmitter } from "./expr-emitter.js";
import { accessPointer } from "./wmma.js";

export type MmaFeature = `ldmatrix_x${1 | 2 | 4}${"" | "_trans"}` | `mma:${string}` | "mma_store" | `mma_store_pairs:${string}` | "mma_tf32x3";

export const MMA_OPS: ReadonlySet<string> = new Set(Object.keys(WARP_OP_ARITY));

/** The mma.sync variants the generator knows: PTX shape and types → register counts and C types. */
interface MmaVariant {
  readonly shape: string;
  readonly ptxTypes: string;
  readonly aRegs: number;
  readonly bRegs: number;
  /** Accumulator registers and their constraint ("f": one float each, "r": a half2 each). */
  readonly cRegs: number;
  readonly cConstraint: "f" | "r";
  readonly inType: string;
  readonly outType: string;
}

const MMA_VARIANTS: Readonly<Record<string, MmaVariant>> = {
  "m16n8k16.fp16.fp16.fp32": {
    shape: "m16n8k16",
    ptxTypes: "f32.f16.f16.f32",
    aRegs: 4,
    bRegs: 2,
    cRegs: 4,
    cConstraint: "f",
    inType: "half",
    outType: "float",
  },
  "m16n8k16.fp16.fp16.fp16": {
    shape: "m16n8k16",
    ptxTypes: "f16.f16.f16.f16",
    aRegs: 4,
    bRegs: 2,
    cRegs: 2,
    cConstraint: "r",
    inType: "half",
    outType: "half",
  },
  "m16n8k16.bf16.bf16.fp32": {
    shape: "m16n8k16",
    ptxTypes: "f32.bf16.bf16.f32",
    aRegs: 4,
    bRegs: 2,
    cRegs: 4,
    cConstraint: "f",
    inType: "__nv_bfloat16",
    outType: "float",
  },
  "m16n8k8.tf32.tf32.fp32": {
    shape: "m16n8k8",
    ptxTypes: "f32.tf32.tf32.f32",
    aRegs: 4,
    bRegs: 2,
    cRegs: 4,
    cConstraint: "f",
    inType: "float",
    outType: "float",
  },
};

const helperName = (key: string): string => `tessera_mma_${key.replaceAll(".", "_")}`;

/** The C statement of an mma.sync intrinsic call. */
export function mmaStatement(ctx: EmitContext, exprs: ExprEmitter, call: Call): string {
  const arity = WARP_OP_ARITY[call.op];
  if (call.args.length !== arity) fail(ctx, `T.${call.op} takes ${arity} arguments, got ${call.args.length}`);
  const reg = (b: number) => registers(ctx, exprs, call.args[b], call.args[b + 1]!, call.op);
  switch (call.op) {
    case PTX_LDMATRIX: {
      const num = intArg(ctx, call, 1);
      if (num !== 1 && num !== 2 && num !== 4) fail(ctx, `T.${call.op}: ldmatrix loads 1, 2 or 4 matrices, not ${num}`);
      if (stringArg(ctx, call, 2) !== ".b16") fail(ctx, `T.${call.op}: only .b16 elements are supported`);
      const feature: MmaFeature = `ldmatrix_x${num}${boolArg(ctx, call, 0) ? "_trans" : ""}`;
      ctx.features.add(feature);
      return `tessera_${feature}(${reg(3)}, ${accessPointer(ctx, exprs, call.args[5]!, call.op)} + ${exprs.expr(call.args[6]!)});`;
    }
    case PTX_MMA: {
      const [shape, layoutA, layoutB, ta, tb, tc] = [0, 1, 2, 3, 4, 5].map((i) => stringArg(ctx, call, i));
      if (layoutA !== "row" || layoutB !== "col") fail(ctx, `T.${call.op}: only row-major A and column-major B exist for ${shape}, got ${layoutA}/${layoutB}`);
      if (boolArg(ctx, call, 12)) fail(ctx, `T.${call.op}: saturation is not supported`);
      const key = `${shape}.${ta}.${tb}.${tc}`;
      if (MMA_VARIANTS[key] === undefined) fail(ctx, `T.${call.op}: no mma.sync ${key}; known: ${Object.keys(MMA_VARIANTS).join(", ")}`);
      ctx.features.add(`mma:${key}`);
      return `${helperName(key)}(${reg(10)}, ${reg(6)}, ${reg(8)});`;
    }
    case MMA_TF32X3: {
      ctx.features.add(`mma:${TF32_KEY}`);
      ctx.features.add("mma_tf32x3");
      return `tessera_mma_m16n8k8_tf32x3(${reg(8)}, ${reg(0)}, ${reg(2)}, ${reg(4)}, ${reg(6)});`;
    }
    case MMA_FILL: {
      const n = intArg(ctx, call, 0);
      const c = reg(1);
      return `for (int tessera_r = 0; tessera_r < ${n}; ++tessera_r) (${c})[tessera_r] = 0;`;
    }
    default: {
      if (intArg(ctx, call, 0) !== 16 || intArg(ctx, call, 1) !== 16) fail(ctx, `T.${call.op}: only 16×16 tiles are supported`);
      const helper = storeHelperOf(ctx, call);
      return `${helper}(${accessPointer(ctx, exprs, call.args[2]!, call.op)}, ${reg(3)}, ${exprs.expr(call.args[5]!)});`;
    }
  }
}

/**
 * Stores that write a lane's two adjacent columns as one vector, by registers' and destination's
 * dtypes: the helper, the C element types, the pair's type and size, how a pair and one element are made.
 */
interface PairStore {
  readonly name: string;
  readonly dst: string;
  readonly src: string;
  readonly pair: string;
  readonly pairBytes: number;
  readonly pack: (a: string, b: string) => string;
  readonly one: (x: string) => string;
  readonly header?: "cuda_fp16";
}

const PAIR_STORES: Readonly<Record<string, PairStore>> = {
  "float32>float32": {
    name: "tessera_mma_store_16x16_f32",
    dst: "float",
    src: "float",
    pair: "float2",
    pairBytes: 8,
    pack: (a, b) => `make_float2(${a}, ${b})`,
    one: (x) => x,
  },
  "float32>float16": {
    name: "tessera_mma_store_16x16_f32_to_f16",
    dst: "__half",
    src: "float",
    pair: "__half2",
    pairBytes: 4,
    pack: (a, b) => `__floats2half2_rn(${a}, ${b})`,
    one: (x) => `__float2half_rn(${x})`,
    header: "cuda_fp16",
  },
};

/** The store helper of `T.cuda.mma_store_legacy` for its registers' and destination's dtypes (noting the feature). */
function storeHelperOf(ctx: EmitContext, call: Call): string {
  const dtypeOf = (e: PrimExpr | undefined) => (e?.kind === "Var" ? ctx.storage.get(e)?.dtype : undefined);
  const pointer = call.args[2];
  const to = dtypeOf(pointer?.kind === "Call" && pointer.op === "tvm_access_ptr" ? pointer.args[1] : undefined);
  const from = dtypeOf(call.args[3]);
  const key = `${from}>${to}`;
  const pairs = PAIR_STORES[key];
  if (pairs !== undefined) {
    if (pairs.header !== undefined) ctx.features.add(pairs.header);
    ctx.features.add(`mma_store_pairs:${key}`);
    return pairs.name;
  }
  if (from === undefined || to === undefined || from === to) {
    ctx.features.add("mma_store");
    return "tessera_mma_store_16x16";
  }
  return fail(ctx, `T.${call.op}: no store of ${from} accumulator registers to a ${to} tile (same dtypes, or float32 to float16)`);
}

const SHARED_ADDRESS = "unsigned int address = static_cast<unsigned int>(__cvta_generic_to_shared(smem));";

function ldmatrixHelper(num: 1 | 2 | 4, trans: boolean): string {
  const name = `tessera_ldmatrix_x${num}${trans ? "_trans" : ""}`;
  const outs = Array.from({ length: num }, (_, i) => `"=r"(d[${i}])`).join(", ");
  const regs = Array.from({ length: num }, (_, i) => `%${i}`).join(", ");
  return guarded(`${name.toUpperCase()}_DEFINED`, [
    `// ldmatrix (sm_75+): ${num} 8×8 matrices of 16-bit elements from shared memory into the warp's registers${trans ? ", transposed" : ""};`,
    "// lanes 8i..8i+7 give the row addresses of matrix i.",
    `__device__ __forceinline__ void ${name}(void* dst, const void* smem) {`,
    `  ${SHARED_ADDRESS}`,
    "  unsigned int* d = reinterpret_cast<unsigned int*>(dst);",
    `  asm volatile("ldmatrix.sync.aligned.m8n8.x${num}${trans ? ".trans" : ""}.shared.b16 {${regs}}, [%${num}];\\n" : ${outs} : "r"(address));`,
    "}",
  ]);
}

function mmaHelper(key: string, v: MmaVariant): string {
  const name = helperName(key);
  let n = 0;
  const operands = (count: number) => Array.from({ length: count }, () => `%${n++}`).join(", ");
  const [c, a, b] = [operands(v.cRegs), operands(v.aRegs), operands(v.bRegs)];
  const cOut = Array.from({ length: v.cRegs }, (_, i) => `"+${v.cConstraint}"(${v.cConstraint === "f" ? `c[${i}]` : `C[${i}]`})`).join(", ");
  const ins = (reg: string, count: number) => Array.from({ length: count }, (_, i) => `"r"(${reg}[${i}])`).join(", ");
  const body: string[] = [];
  if (v.cConstraint === "r") body.push("  unsigned int* C = reinterpret_cast<unsigned int*>(c);");
  body.push("  const unsigned int* A = reinterpret_cast<const unsigned int*>(a);");
  body.push("  const unsigned int* B = reinterpret_cast<const unsigned int*>(b);");
  return guarded(`${name.toUpperCase()}_DEFINED`, [
    `// mma.sync ${v.shape} (sm_80+): the warp's C += A·B on fragments in the PTX ISA's register layouts.`,
    `__device__ __forceinline__ void ${name}(${v.outType}* c, const ${v.inType}* a, const ${v.inType}* b) {`,
    ...body,
    `  asm volatile("mma.sync.aligned.${v.shape}.row.col.${v.ptxTypes} {${c}}, {${a}}, {${b}}, {${c}};\\n"`,
    `               : ${cOut}`,
    `               : ${ins("A", v.aRegs)}, ${ins("B", v.bRegs)});`,
    "}",
  ]);
}

const STORE_HELPER = guarded("TESSERA_MMA_STORE_16X16_DEFINED", [
  "// Stores a 16×16 accumulator tile (two m16n8 halves) from the warp's registers: lane l holds rows",
  "// l/4 and l/4 + 8, columns 2(l%4), 2(l%4)+1 of each half.",
  "template <typename T>",
  "__device__ __forceinline__ void tessera_mma_store_16x16(T* dst, const T* w, int stride) {",
  "  int lane = threadIdx.x & 31;",
  "  for (int r = 0; r < 8; ++r) {",
  "    int row = lane / 4 + 8 * ((r % 4) / 2);",
  "    int col = (lane % 4) * 2 + r % 2 + 8 * (r / 4);",
  "    dst[row * stride + col] = w[r];",
  "  }",
  "}",
]);

/** A pair store's helper: each element converted once, two adjacent columns per vector store where dst and stride keep them aligned. */
function pairStoreHelper(p: PairStore): string {
  return guarded(`${p.name.toUpperCase()}_DEFINED`, [
    `// Stores a 16×16 accumulator tile of ${p.src} registers as ${p.dst} (lane l holds rows l/4 and l/4 + 8, columns`,
    `// 2(l%4), 2(l%4)+1 of each m16n8 half): the two columns as one ${p.pair} where dst and stride keep it aligned.`,
    `__device__ __forceinline__ void ${p.name}(${p.dst}* dst, const ${p.src}* w, int stride) {`,
    "  int lane = threadIdx.x & 31;",
    `  bool paired = (reinterpret_cast<unsigned long long>(dst) & ${p.pairBytes - 1}) == 0 && stride % 2 == 0;`,
    "  for (int r = 0; r < 8; r += 2) {",
    `    ${p.dst}* q = dst + (lane / 4 + 8 * ((r % 4) / 2)) * stride + (lane % 4) * 2 + 8 * (r / 4);`,
    "    if (paired) {",
    `      *reinterpret_cast<${p.pair}*>(q) = ${p.pack("w[r]", "w[r + 1]")};`,
    "    } else {",
    `      q[0] = ${p.one("w[r]")};`,
    `      q[1] = ${p.one("w[r + 1]")};`,
    "    }",
    "  }",
    "}",
  ]);
}

const TF32_KEY = "m16n8k8.tf32.tf32.fp32";

const TF32X3_HELPER = guarded("TESSERA_MMA_TF32X3_DEFINED", [
  "// 3xTF32 into one accumulator, small products first (a chunk of k, added into the main accumulator after it).",
  "__device__ __forceinline__ void tessera_mma_m16n8k8_tf32x3(float* c, const float* a_hi, const float* a_lo, const float* b_hi, const float* b_lo) {",
  `  ${helperName(TF32_KEY)}(c, a_lo, b_hi);`,
  `  ${helperName(TF32_KEY)}(c, a_hi, b_lo);`,
  `  ${helperName(TF32_KEY)}(c, a_hi, b_hi);`,
  "}",
]);

/** The helper definitions for the mma features used, in a fixed order. */
export function mmaPreamble(has: (f: MmaFeature) => boolean): string[] {
  const parts: string[] = [];
  for (const num of [1, 2, 4] as const)
    for (const trans of [false, true]) if (has(`ldmatrix_x${num}${trans ? "_trans" : ""}`)) parts.push(ldmatrixHelper(num, trans));
  for (const [key, v] of Object.entries(MMA_VARIANTS)) if (has(`mma:${key}`)) parts.push(mmaHelper(key, v));
  if (has("mma_tf32x3")) parts.push(TF32X3_HELPER);
  if (has("mma_store")) parts.push(STORE_HELPER);
  for (const [key, p] of Object.entries(PAIR_STORES)) if (has(`mma_store_pairs:${key}`)) parts.push(pairStoreHelper(p));
  return parts;
}

/** Whether a kernel's features include mma.sync or ldmatrix (sm_80 for the MMAs). */
export function usesMma(features: ReadonlySet<string>): boolean {
  for (const f of features) if (f.startsWith("ldmatrix_") || f.startsWith("mma:") || f.startsWith("mma_store")) return true;
  return false;
}
