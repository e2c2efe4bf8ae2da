/**
 * An epilogue fused into the accumulator's store: the fp16-output GEMM (`D = half(C)`, C the
 * float32 accumulation) writes its C tile straight from the registers as float16, as TVM's
 * tensor-core GEMMs store `T.Cast("float16", acc)`, instead of a float32 C in memory and a pass
 * that rounds it; and gemm+ReLU+add (`R = t(max(C, 0))`, `D = R + X`, for the dtypes t the group has
 * a store for) writes D from the registers, instead of C and a second kernel.
 */
import type { Block, PrimExpr, Var } from "@tessera/ir";
import { type BlockRV, type Schedule, ScheduleError } from "@tessera/schedule";

/** The store intrinsics of an intrinsic group: its plain store, and the stores that cast, by the dtype they write. */
export interface GroupStores {
  readonly store: string;
  readonly castStores?: Readonly<Record<string, string>>;
  /** Stores that write `D = t(max(acc, 0)) + X`, by the dtype t of D (gemm+ReLU+add's epilogue). */
  readonly reluAddStores?: Readonly<Record<string, string>>;
}

/**
 * The intrinsic that stores the accumulator tile `store` writes back. Where the buffer it writes
 * has a single consumer `D[i, j] = cast(t, C[i, j])` and the group has a store that casts to `t`,
 * the consumer is inlined into `store` (reverse_compute_inline) and that cast store is returned;
 * otherwise (also where the inlining is refused: C is an output too) the group's plain store, with
 * `sch` untouched.
 */
export function storeIntrinsicWithEpilogue(sch: Schedule, store: BlockRV, group: GroupStores): string {
  const consumers = sch.getConsumers(store);
  if (consumers.length !== 1) return group.store;
  const reluAdd = reluAddStoreOf(sch, consumers[0]!, group);
  if (reluAdd !== undefined) {
    if (!inlinedIntoStore(sch, consumers[0]!)) return group.store;
    // The add reads what the store now writes: inlined too (refused only where R is also an output, checked below).
    sch.reverseComputeInline(reluAdd.add);
    return reluAdd.intrinsic;
  }
  const target = castTargetOf(sch.get(consumers[0]!));
  const castStore = target === undefined ? undefined : group.castStores?.[target];
  if (castStore === undefined) return group.store;
  return inlinedIntoStore(sch, consumers[0]!) ? castStore : group.store;
}

/**
 * reverse_compute_inline of `consumer` into the store; false where the schedule refuses it (C is
 * also an output of the function, say), the schedule then unchanged and C kept in memory.
 */
function inlinedIntoStore(sch: Schedule, consumer: BlockRV): boolean {
  try {
    sch.reverseComputeInline(consumer);
    return true;
  } catch (err) {
    if (err instanceof ScheduleError) return false;
    throw err;
  }
}

/**
 * The relu-and-add chain after a store, when the group has a store for it: `relu`, the store's only
 * consumer, is `R = t(max(C, 0))` (the cast only where t is not C's dtype) and the only consumer of
 * R is `D = R + X` of dtype t, R not an output of the function.
 */
function reluAddStoreOf(sch: Schedule, relu: BlockRV, group: GroupStores): { add: BlockRV; intrinsic: string } | undefined {
  if (group.reluAddStores === undefined) return undefined;
  const r = sch.get(relu);
  const t = reluTargetOf(r);
  const intrinsic = t === undefined ? undefined : group.reluAddStores[t];
  if (intrinsic === undefined) return undefined;
  const adds = sch.getConsumers(relu);
  if (adds.length !== 1 || isOutput(sch, r.writes[0]!.buffer)) return undefined;
  const a = sch.get(adds[0]!);
  if (a.init !== undefined || a.body.kind !== "BufferStore" || a.body.buffer.dtype !== t || a.iterVars.some((iv) => iv.iterType !== "spatial"))
    return undefined;
  const vars = a.iterVars.map((iv) => iv.var);
  const { value, indices } = a.body;
  if (value.kind !== "Binary" || value.op !== "add" || !sameVars(indices, vars)) return undefined;
  const [x, y] = [value.a, value.b];
  if (x.kind !== "BufferLoad" || x.buffer !== r.writes[0]!.buffer || !sameVars(x.indices, vars)) return undefined;
  if (y.kind !== "BufferLoad" || y.buffer.dtype !== t || !sameVars(y.indices, vars)) return undefined;
  return { add: adds[0]!, intrinsic };
}

/** The dtype t of `R[i, j] = t(max(C[i, j], 0))` (no cast where t is C's dtype), or undefined. */
function reluTargetOf(block: Block): string | undefined {
  if (block.init !== undefined || block.body.kind !== "BufferStore" || block.iterVars.some((iv) => iv.iterType !== "spatial")) return undefined;
  const vars = block.iterVars.map((iv) => iv.var);
  const { value, indices } = block.body;
  if (!sameVars(indices, vars)) return undefined;
  const inner = value.kind === "Cast" ? value.value : value;
  if (inner.kind !== "Binary" || inner.op !== "max" || inner.a.kind !== "BufferLoad" || !sameVars(inner.a.indices, vars)) return undefined;
  if (inner.b.kind !== "FloatImm" || inner.b.value !== 0) return undefined;
  if (value.kind !== "Cast" && block.body.buffer.dtype !== inner.a.buffer.dtype) return undefined;
  return block.body.buffer.dtype;
}

function isOutput(sch: Schedule, buffer: Block["writes"][number]["buffer"]): boolean {
  return [...sch.func.bufferMap.values()].includes(buffer);
}

/** The dtype of `D[i, j] = cast(dtype, C[i, j])` (indices the block's spatial iterators, in order), or undefined. */
function castTargetOf(block: Block): string | undefined {
  if (block.init !== undefined || block.body.kind !== "BufferStore" || block.iterVars.some((iv) => iv.iterType !== "spatial")) return undefined;
  const vars = block.iterVars.map((iv) => iv.var);
  const { value, indices } = block.body;
  if (value.kind !== "Cast" || value.value.kind !== "BufferLoad" || !sameVars(indices, vars) || !sameVars(value.value.indices, vars)) return undefined;
  return value.dtype;
}

function sameVars(indices: readonly PrimExpr[], vars: readonly Var[]): boolean {
  return indices.length === vars.length && indices.every((x, k) => x === vars[k]);
}
