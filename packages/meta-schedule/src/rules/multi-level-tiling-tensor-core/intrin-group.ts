/**
 * TVM's tensor-core intrinsic groups (init, load_a, load_b, compute, store: one registered tensor
 * intrinsic each) and the test of whether a block is a matmul one group computes:
 * `C[i, j] += cast(A[i, k]) · cast(B[k, j])` with the group's operand and accumulator dtypes and
 * i, j, k multiples of the intrinsic's tile.
 */
import type { Block, BufferLoad, PrimExpr, Var } from "@tessera/ir";
import { MMA_INTRINSICS, TensorIntrin, WGMMA_N, type WgmmaN, wgmmaIntrinName } from "@tessera/schedule";

export interface TensorCoreIntrinGroup {
  /** Operand (A, B) and accumulator (C) dtypes. */
  readonly inDtype: string;
  readonly outDtype: string;
  /** The tile one compute intrinsic covers: 16×16 of C, `k` deep. */
  readonly k: number;
  /** Lanes of one 16-byte load of an operand into shared memory. */
  readonly vectorLanes: number;
  readonly init: string;
  readonly loadA: string;
  readonly loadB: string;
  /** load_a and load_b from tiles in dynamic shared memory ("shared.dyn"). */
  readonly loadASharedDyn: string;
  readonly loadBSharedDyn: string;
  readonly compute: string;
  readonly store: string;
  /** Stores that cast the accumulator as they write it, by the dtype written (a cast epilogue fused: cast-epilogue.ts). */
  readonly castStores?: Readonly<Record<string, string>>;
  /** Stores that write gemm+ReLU+add's `D = t(max(acc, 0)) + X`, by the dtype t of D (cast-epilogue.ts). */
  readonly reluAddStores?: Readonly<Record<string, string>>;
  /**
   * A tf32 group: A and B must be tf32 stages (`tf32(X)`, operand-stages.ts; only a requested
   * fp32 precision writes them), which become the fragment loads (16×k of A, k×16 of B), instead
   * of cache reads of the operands. A float32 GEMM without the stages never matches.
   */
  readonly tf32Operands?: boolean;
}

const M = MMA_INTRINSICS;

/**
 * gemm+ReLU+add's epilogue stored from float32 registers into a float32 D, or a float16 one (its C
 * read and D written in 32-bit `__half2` pairs: with 16-bit scalars the fp16 bonus workload measured
 * slower fused than as a second kernel, docs/benchmarks/tensor-core-2026-11-30-s20).
 */
export const RELU_ADD_STORES: Readonly<Record<string, string>> = { float32: M.storeF32ReluAddGlobal, float16: M.storeF32ReluAddF16Global };

/** ldmatrix + mma.sync m16n8k16, fp16 operands, fp32 accumulation (TVM's mma_f16f16f32 group). */
export const MMA_FP16_FP32_GROUP: TensorCoreIntrinGroup = {
  inDtype: "float16",
  outDtype: "float32",
  k: 16,
  vectorLanes: 8,
  init: M.fillF32,
  loadA: M.ldmatrixF16A,
  loadB: M.ldmatrixF16B,
  loadASharedDyn: M.ldmatrixF16ADyn,
  loadBSharedDyn: M.ldmatrixF16BDyn,
  compute: M.mmaF16F16F32,
  store: M.storeF32Global,
  castStores: { float16: M.storeF32ToF16Global },
  reluAddStores: RELU_ADD_STORES,
};

/** ldmatrix + mma.sync m16n8k16, fp16 operands and accumulator. */
export const MMA_FP16_FP16_GROUP: TensorCoreIntrinGroup = {
  ...MMA_FP16_FP32_GROUP,
  outDtype: "float16",
  init: M.fillF16,
  compute: M.mmaF16F16F16,
  store: M.storeF16Global,
  castStores: {},
  reluAddStores: {},
};

/**
 * mma.sync m16n8k8 tf32 (beyond TVM): float32 operands rounded to tf32 by their stages, loaded into
 * the registers with plain 32-bit loads that round (`cvt.rna.tf32.f32`), fp32 accumulation.
 */
export const MMA_TF32_GROUP: TensorCoreIntrinGroup = {
  inDtype: "float32",
  outDtype: "float32",
  k: 8,
  vectorLanes: 4,
  init: M.fillF32,
  loadA: M.loadTF32A,
  loadB: M.loadTF32B,
  loadASharedDyn: M.loadTF32ADyn,
  loadBSharedDyn: M.loadTF32BDyn,
  compute: M.mmaTF32TF32F32,
  store: M.storeF32Global,
  reluAddStores: { float32: M.storeF32ReluAddGlobal },
  tf32Operands: true,
};

export const MMA_INTRIN_GROUPS: readonly TensorCoreIntrinGroup[] = [MMA_FP16_FP32_GROUP, MMA_FP16_FP16_GROUP, MMA_TF32_GROUP];

/**
 * A Hopper wgmma group (beyond TVM): m64nNk16 computes for each N offered, reading A and B from
 * 128B-swizzled dynamic shared memory (no load intrinsics), the accumulator filled and stored per
 * 16×16 tile with the mma.sync group's fill and store (wgmma's fragment is that layout per tile).
 */
export interface WgmmaIntrinGroup {
  readonly inDtype: string;
  readonly outDtype: string;
  /** The k of one instruction, and the k of a shared chunk (one 128-byte swizzle row of A). */
  readonly k: number;
  readonly stageK: number;
  /** Lanes of one 16-byte copy of an operand into shared memory. */
  readonly vectorLanes: number;
  /** The N the compute intrinsics exist for, and the intrinsic of each. */
  readonly n: readonly WgmmaN[];
  readonly computeOf: (n: WgmmaN) => string;
  readonly init: string;
  readonly store: string;
  /** Stores that cast the accumulator as they write it, by the dtype written (a cast epilogue fused: cast-epilogue.ts). */
  readonly castStores?: Readonly<Record<string, string>>;
  /** Stores that write gemm+ReLU+add's `D = t(max(acc, 0)) + X`, by the dtype t of D (cast-epilogue.ts). */
  readonly reluAddStores?: Readonly<Record<string, string>>;
  /** The architectures (`sm_<n>`) with the instructions: wgmma is sm_90a's alone (Blackwell has none). */
  readonly archs: readonly number[];
}

/** wgmma m64nNk16, fp16 operands, fp32 accumulation (sm_90a). */
export const WGMMA_FP16_FP32_GROUP: WgmmaIntrinGroup = {
  inDtype: "float16",
  outDtype: "float32",
  k: 16,
  stageK: 64,
  vectorLanes: 8,
  n: WGMMA_N,
  computeOf: wgmmaIntrinName,
  init: M.fillF32,
  store: M.storeF32Global,
  castStores: { float16: M.storeF32ToF16Global },
  reluAddStores: RELU_ADD_STORES,
  archs: [90],
};

export const WGMMA_INTRIN_GROUPS: readonly WgmmaIntrinGroup[] = [WGMMA_FP16_FP32_GROUP];

/** The intrinsics of a group that the registry lacks (a group with any missing cannot be used). */
export function missingIntrinsics(group: TensorCoreIntrinGroup | WgmmaIntrinGroup): string[] {
  const names =
    "computeOf" in group
      ? [group.init, group.store, ...group.n.map((n) => group.computeOf(n))]
      : [group.init, group.loadA, group.loadB, group.loadASharedDyn, group.loadBSharedDyn, group.compute, group.store];
  return names.filter((name) => !TensorIntrin.has(name));
}

/** The operand and accumulator buffers of a matched block, by read index. */
export interface MatmulMatch<G = TensorCoreIntrinGroup> {
  readonly group: G;
  /** The constant extents of i, j and k. */
  readonly extents: readonly [i: number, j: number, k: number];
  /** Indices of A and B among the block's reads. */
  readonly readA: number;
  readonly readB: number;
}

const TILE = 16;

/** The operand loads of a matmul block `C[i, j] += cast(A[i, k]) · cast(B[k, j])` (matmulOperands). */
export interface MatmulOperands {
  readonly a: BufferLoad;
  readonly b: BufferLoad;
  readonly readA: number;
  readonly readB: number;
  /** The constant extents of i, j and k (0 where not constant). */
  readonly extents: readonly [i: number, j: number, k: number];
  /** Whether either operand is cast to the accumulator's dtype. */
  readonly casts: boolean;
}

/**
 * The operands of `block` when it is `C[i, j] = C[i, j] + cast(A[i, k]) · cast(B[k, j])` (casts only
 * to the accumulator dtype, none when the dtypes agree), its iterators i, j spatial and k a
 * reduction; undefined otherwise.
 */
export function matmulOperands(block: Block): MatmulOperands | undefined {
  if (block.iterVars.length !== 3 || block.body.kind !== "BufferStore" || block.init === undefined) return undefined;
  const [vi, vj, vk] = block.iterVars;
  if (vi!.iterType !== "spatial" || vj!.iterType !== "spatial" || vk!.iterType !== "reduce") return undefined;
  const extents = block.iterVars.map((iv) => (iv.dom.extent.kind === "IntImm" ? iv.dom.extent.value : 0));
  const store = block.body;
  if (!isAt(store.indices, [vi!.var, vj!.var])) return undefined;
  const value = store.value;
  if (value.kind !== "Binary" || value.op !== "add") return undefined;
  const [acc, product] = isLoadOf(value.a, store.buffer) ? [value.a, value.b] : [value.b, value.a];
  if (!isLoadOf(acc, store.buffer) || !isAt((acc as BufferLoad).indices, [vi!.var, vj!.var])) return undefined;
  if (product.kind !== "Binary" || product.op !== "mul") return undefined;
  const [a, b] = operandsOf(product.a, product.b, store.buffer.dtype, [vi!.var, vj!.var, vk!.var]) ?? [];
  if (a === undefined || b === undefined) return undefined;
  const readA = block.reads.findIndex((r) => r.buffer === a.buffer);
  const readB = block.reads.findIndex((r) => r.buffer === b.buffer);
  if (readA < 0 || readB < 0 || readA === readB) return undefined;
  const casts = product.a.kind === "Cast" || product.b.kind === "Cast";
  return { a, b, readA, readB, casts, extents: [extents[0]!, extents[1]!, extents[2]!] };
}

/**
 * The first group whose intrinsics compute `block`, or undefined: the block must be a matmul
 * (`matmulOperands`) with the group's operand and accumulator dtypes and constant extents that are
 * multiples of 16 (i, j) and of the group's k, that `accepts` (the operands' stages, say).
 */
export function matchMatmul<G extends TensorCoreIntrinGroup | WgmmaIntrinGroup>(
  block: Block,
  groups: readonly G[],
  accepts: (group: G, operands: MatmulOperands) => boolean = () => true,
): MatmulMatch<G> | undefined {
  const m = matmulOperands(block);
  if (m === undefined || block.body.kind !== "BufferStore") return undefined;
  const { a, b, extents } = m;
  const outDtype = block.body.buffer.dtype;
  const group = groups.find(
    (g) =>
      g.outDtype === outDtype &&
      g.inDtype === a.buffer.dtype &&
      g.inDtype === b.buffer.dtype &&
      extents[0] % TILE === 0 &&
      extents[1] % TILE === 0 &&
      extents[2] % g.k === 0 &&
      extents.every((e) => e > 0) &&
      missingIntrinsics(g).length === 0 &&
      accepts(g, m),
  );
  return group === undefined ? undefined : { group, readA: m.readA, readB: m.readB, extents };
}

function isLoadOf(e: PrimExpr, buffer: Block["writes"][number]["buffer"]): boolean {
  return e.kind === "BufferLoad" && e.buffer === buffer;
}

/** The loads A[i, k] and B[k, j] of a product `x · y` (in either order), or undefined. */
function operandsOf(x: PrimExpr, y: PrimExpr, accumulator: string, [i, j, k]: readonly Var[]): [BufferLoad, BufferLoad] | undefined {
  const first = operandLoad(x, accumulator);
  const second = operandLoad(y, accumulator);
  if (first === undefined || second === undefined) return undefined;
  for (const [a, b] of [
    [first, second],
    [second, first],
  ] as const)
    if (isAt(a.indices, [i!, k!]) && isAt(b.indices, [k!, j!])) return [a, b];
  return undefined;
}

/** A load of an operand, under at most one cast to the accumulator dtype. */
function operandLoad(e: PrimExpr, accumulator: string): BufferLoad | undefined {
  const inner = e.kind === "Cast" && e.dtype === accumulator ? e.value : e;
  return inner.kind === "BufferLoad" && inner.predicate === undefined ? inner : undefined;
}

function isAt(indices: readonly PrimExpr[], vars: readonly Var[]): boolean {
  return indices.length === vars.length && indices.every((x, k) => x === vars[k]);
}
