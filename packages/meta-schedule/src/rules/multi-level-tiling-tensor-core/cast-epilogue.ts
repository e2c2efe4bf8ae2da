/**
 * A cast epilogue fused into the accumulator's store: the fp16-output GEMM (`D = half(C)`, C the
 * float32 accumulation) writes its C tile straight from the registers as float16, as TVM's
 * tensor-core GEMMs store `T.Cast("float16", acc)`, instead of a float32 C in memory and a pass
 * that rounds it.
 */
import type { Block, PrimExpr, Var } from "@tessera/ir";
import { type BlockRV, type Schedule, ScheduleError } from "@tessera/schedule";

/** The store intrinsics of an intrinsic group: its plain store, and the stores that cast, by the dtype they write. */
export interface GroupStores {
  readonly store: string;
  readonly castStores?: Readonly<Record<string, string>>;
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
  const target = castTargetOf(sch.get(consumers[0]!));
  const castStore = target === undefined ? undefined : group.castStores?.[target];
  if (castStore === undefined) return group.store;
  try {
    sch.reverseComputeInline(consumers[0]!);
  } catch (err) {
    // Refused (C is also an output of the function, say): the schedule is unchanged, C stays in memory.
    if (err instanceof ScheduleError) return group.store;
    throw err;
  }
  return castStore;
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
