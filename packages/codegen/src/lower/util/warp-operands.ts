/**
 * The mma.sync intrinsics that take warp-register operands (TVM's legacy PTX builtins, as our
 * tensor intrinsics emit them): which arguments are a register buffer and its element offset.
 * Shared by lowerWarpMemory, the CUDA generator and the simulator.
 */
import type { Call } from "@tessera/ir";

export const PTX_LDMATRIX = "ptx_legacy.ldmatrix";
export const PTX_MMA = "ptx_legacy.mma";
export const MMA_FILL = "cuda.mma_fill_legacy";
export const MMA_STORE = "cuda.mma_store_legacy";
/**
 * wgmma (sm_90a): `wgmma_mma_async_ss(shape, type_a, type_b, type_c, trans_a, trans_b,
 * swizzle_bytes, A_ptr, a_lbo, a_sbo, B_ptr, b_lbo, b_sbo, C, c_off)`, A and B in shared memory
 * through descriptors built from the pointers and byte offsets, C the calling warp's accumulator
 * registers (tensor-intrin/cuda/wgmma.ts of @tessera/schedule). The fence, commit and wait take
 * no register operands.
 */
export const WGMMA_MMA_ASYNC = "ptx.wgmma_mma_async_ss";
/**
 * wgmma with A from registers (the `.tf32` register-A form): `wgmma_mma_async_rs(shape, type_a,
 * type_b, type_c, trans_b, swizzle_bytes, A, a_off, B_ptr, b_lbo, b_sbo, C, c_off)`, A the calling
 * warp's fragment registers (4 a lane for m64nNk8 tf32: the warp's 16 rows of A in the m16n8k8 A
 * layout), B in shared memory through a descriptor. The tensor cores read A's registers until the
 * group's `wgmma.wait_group`, as they read the accumulator.
 */
export const WGMMA_MMA_ASYNC_RS = "ptx.wgmma_mma_async_rs";
export const WGMMA_FENCE = "ptx.wgmma_fence";
export const WGMMA_COMMIT_GROUP = "ptx.wgmma_commit_group";
export const WGMMA_WAIT_GROUP = "ptx.wgmma_wait_group";
/** 3xTF32 (Tessera's): three m16n8k8 tf32 MMAs into one accumulator, C += lo·hi, C += hi·lo, C += hi·hi. */
export const MMA_TF32X3 = "cuda.mma_tf32x3";

/**
 * A register operand: argument positions of the buffer and its offset; `perLane` offsets name the
 * calling lane's registers (`width·threadIdx.x + …`), the others the warp's group (lane 0).
 */
export interface RegisterOperand {
  readonly buffer: number;
  readonly offset: number;
  readonly perLane: boolean;
}

const lane = (buffer: number, offset: number): RegisterOperand => ({ buffer, offset, perLane: true });
const group = (buffer: number, offset: number): RegisterOperand => ({ buffer, offset, perLane: false });

const REGISTER_OPERANDS: Readonly<Record<string, readonly RegisterOperand[]>> = {
  // ldmatrix(trans, num, ".b16", dst, dst_offset, smem_ptr, smem_offset)
  [PTX_LDMATRIX]: [lane(3, 4)],
  // mma(shape, layout_a, layout_b, type_a, type_b, type_c, A, a_off, B, b_off, C, c_off, saturate)
  [PTX_MMA]: [lane(6, 7), lane(8, 9), lane(10, 11)],
  // mma_fill(local_size, C, c_off)
  [MMA_FILL]: [group(1, 2)],
  // mma_store(m, n, dst_ptr, W, w_off, stride)
  [MMA_STORE]: [group(3, 4)],
  // mma_tf32x3(A_hi, a, A_lo, a, B_hi, b, B_lo, b, C, c)
  [MMA_TF32X3]: [lane(0, 1), lane(2, 3), lane(4, 5), lane(6, 7), lane(8, 9)],
  [WGMMA_MMA_ASYNC]: [lane(13, 14)],
  [WGMMA_MMA_ASYNC_RS]: [lane(6, 7), lane(11, 12)],
};

/** Arity of each op. */
export const WARP_OP_ARITY: Readonly<Record<string, number>> = { [PTX_LDMATRIX]: 7, [PTX_MMA]: 13, [MMA_FILL]: 3, [MMA_STORE]: 6, [MMA_TF32X3]: 10 };

/**
 * Arity of the wgmma ops (the MMA's register operand is in REGISTER_OPERANDS beside the mma.sync
 * ones); -1: the wait's, `wait_group(n, C, size, …)`, names the accumulators it completes (injectWgmmaSync).
 */
export const WGMMA_OP_ARITY: Readonly<Record<string, number>> = {
  [WGMMA_MMA_ASYNC]: 15,
  [WGMMA_MMA_ASYNC_RS]: 13,
  [WGMMA_FENCE]: 0,
  [WGMMA_COMMIT_GROUP]: 0,
  [WGMMA_WAIT_GROUP]: -1,
};

/**
 * wgmma MMA ops that take an optional last argument, scale-d (PTX's `scale-d` predicate: 1, the
 * default, D = A·B + D; 0, D = A·B, the accumulator not read), at this position (after the arity).
 * foldWgmmaZeroFill sets it in place of a zero fill of the accumulator.
 */
export const WGMMA_SCALE_D_ARG: Readonly<Record<string, number>> = { [WGMMA_MMA_ASYNC_RS]: 13 };

/** Whether `count` arguments fit the wgmma op `op` (its arity, or one more where it takes scale-d). */
export function wgmmaArgCountFits(op: string, count: number): boolean {
  const arity = WGMMA_OP_ARITY[op];
  if (arity === undefined) return false;
  if (arity < 0) return count % 2 === 1;
  return count === arity || (WGMMA_SCALE_D_ARG[op] === arity && count === arity + 1);
}

/** The scale-d of a wgmma MMA call: 0 when its optional argument says so, else 1. */
export function wgmmaScaleD(call: Call): number {
  const i = WGMMA_SCALE_D_ARG[call.op];
  const a = i === undefined ? undefined : call.args[i];
  return a?.kind === "IntImm" && a.value === 0 ? 0 : 1;
}

/**
 * Where the operands of a wgmma MMA call are: the shared-memory pointers its descriptors are built
 * from (read asynchronously until the group's wait), the registers it reads asynchronously as well
 * (A of the register-A form, then the accumulator, which it also writes), the accumulator.
 */
export interface WgmmaMmaOperands {
  readonly shared: readonly number[];
  readonly registers: readonly number[];
  readonly accumulator: number;
}

const WGMMA_MMA_OPERANDS: Readonly<Record<string, WgmmaMmaOperands>> = {
  [WGMMA_MMA_ASYNC]: { shared: [7, 10], registers: [13], accumulator: 13 },
  [WGMMA_MMA_ASYNC_RS]: { shared: [8], registers: [6, 11], accumulator: 11 },
};

/** Whether `op` is a wgmma MMA (shared or register A). */
export function isWgmmaMma(op: string): boolean {
  return WGMMA_MMA_OPERANDS[op] !== undefined;
}

/** The operand positions of a wgmma MMA op; undefined for any other op. */
export function wgmmaMmaOperands(op: string): WgmmaMmaOperands | undefined {
  return WGMMA_MMA_OPERANDS[op];
}

/** Whether `call` is one of the mma.sync register intrinsics. */
export function isWarpRegisterOp(call: Call): boolean {
  return REGISTER_OPERANDS[call.op] !== undefined;
}

/** The register operands of a register intrinsic; empty for any other call. */
export function registerOperands(call: Call): readonly RegisterOperand[] {
  return REGISTER_OPERANDS[call.op] ?? [];
}
