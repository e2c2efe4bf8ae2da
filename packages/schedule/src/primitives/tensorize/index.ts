/**
 * tensorize (TVM's `Tensorize`): a block, or the subtree under a loop (blockized first, as
 * `blockize` would), is checked against a registered intrinsic's description and its body
 * replaced by the implementation's, whose buffers become `match_buffer` views of the actual
 * buffers at the corners the comparison found. The Tensorize instruction has one input (the
 * block or loop) and the attributes `intrin` and `preserve_unit_iters`.
 */
import { type Block, type BlockRealize, type Buffer, type For, type MatchBufferRegion, type Range, cast, intImm, simplify } from "@tessera/ir";
import type { PrimitiveContext } from "../../context.js";
import { ScheduleError, ScheduleUsageError } from "../../errors.js";
import { BlockRV } from "../../handles.js";
import { registerInstruction, renderInput, tsLiteral } from "../../instruction.js";
import { replaceStmts } from "../../state/replace.js";
import { nameOf } from "../../analysis/schedule-checks.js";
import { TensorIntrin, TensorIntrinError } from "../../tensor-intrin/registry.js";
import { freshCopy } from "../../tensor-intrin/fresh-copy.js";
import { blockizeLoop, formatPreserveUnitIters, preserveUnitItersAttr } from "../blockize/index.js";
import { TensorizeComparator, TensorizeMismatch } from "./comparator.js";

const TENSORIZE = "tensorize";

/** The computation under a loop or block is not what the intrinsic's description computes. */
export class TensorIntrinMismatchError extends ScheduleError {
  override name = "TensorIntrinMismatchError";
  constructor(
    target: For | Block,
    readonly intrin: string,
    readonly differences: readonly string[],
    at: For | Block | undefined,
    hint?: string,
  ) {
    const what = `${target.kind === "For" ? "loop" : "block"} ${nameOf(target)}`;
    const inside = at !== undefined && at !== target ? ` (at ${at.kind === "For" ? "loop" : "block"} ${nameOf(at)})` : "";
    const hinted = hint === undefined ? "" : `. Hint: ${hint}`;
    super(TENSORIZE, `The ${what} does not match the tensor intrinsic "${intrin}"${inside}: ${differences.join("; ")}${hinted}`, [target]);
  }
}

function tensorize(ctx: PrimitiveContext, target: unknown, intrinName: string, preserveUnitIters: boolean): void {
  const entry = target instanceof BlockRV ? ctx.block(target, TENSORIZE, "blockOrLoop") : ctx.loop(target, TENSORIZE, "blockOrLoop");
  let intrin: TensorIntrin;
  try {
    intrin = TensorIntrin.get(intrinName);
  } catch (e) {
    if (e instanceof TensorIntrinError) throw new ScheduleUsageError(TENSORIZE, e.message);
    throw e;
  }
  const realize = entry.kind === "block" ? entry.realize : blockizeLoop(ctx, entry, preserveUnitIters, TENSORIZE);
  const comparator = new TensorizeComparator();
  try {
    comparator.compare(realize, intrin.desc.body);
  } catch (e) {
    if (e instanceof TensorizeMismatch) throw new TensorIntrinMismatchError(entry.node, intrinName, e.differences, e.at, intrin.mismatchHint);
    throw e;
  }
  const replaced = replaceWithImpl(realize, intrin, comparator);
  const stmt = entry.kind === "block" ? entry.realize : entry.node;
  ctx.commit(replaceStmts(ctx.func.body, new Map([[stmt, replaced]]), undefined, ctx.index));
}

/** The block with the implementation's body, its buffers matched to the workload's regions. */
function replaceWithImpl(realize: BlockRealize, intrin: TensorIntrin, comparator: TensorizeComparator): BlockRealize {
  const impl = freshCopy(intrin.impl);
  if (impl.body.kind !== "BlockRealize") throw new Error("internal error: a registered implementation is one block");
  const implBlock = impl.body.block;
  const implRegions = new Map<Buffer, readonly Range[]>();
  for (const r of [...implBlock.reads, ...implBlock.writes]) if (!implRegions.has(r.buffer)) implRegions.set(r.buffer, r.region);
  const descParams = intrin.desc.params.map((p) => intrin.desc.bufferMap.get(p)!);
  const matchBuffers = impl.params.map((p, i): MatchBufferRegion => {
    const buffer = impl.bufferMap.get(p)!;
    const actual = comparator.bufferMap.get(descParams[i]!);
    if (actual === undefined) {
      throw new ScheduleError(TENSORIZE, `the description of tensor intrinsic "${intrin.name}" never uses its parameter ${descParams[i]!.name}`);
    }
    const base = comparator.indicesBase.get(actual)!;
    const region = implRegions.get(buffer)!;
    const offset = base.length - region.length;
    const lead = base.slice(0, offset).map((min): Range => ({ min, extent: intImm(1, min.dtype) }));
    // Extents in the workload's index dtype (int64 indices stay int64).
    const tail = region.map((r, d): Range => ({ min: base[d + offset]!, extent: simplify(cast(base[d + offset]!.dtype, r.extent)) }));
    return { buffer, source: { buffer: actual, region: [...lead, ...tail] } };
  });
  // On a conflict the schedule's annotation wins, as in TVM.
  const annotations = { ...implBlock.annotations, ...realize.block.annotations };
  return { ...realize, block: { ...realize.block, body: implBlock.body, matchBuffers, annotations } };
}

registerInstruction({
  name: "Tensorize",
  method: "tensorize",
  pure: false,
  singleOutput: false,
  attrNames: ["intrin", "preserve_unit_iters"],
  apply(ctx, inputs, attrs) {
    const intrin = attrs[0];
    if (typeof intrin !== "string") throw new ScheduleUsageError(TENSORIZE, `the intrinsic must be named by a string, got ${JSON.stringify(intrin)}`);
    tensorize(ctx, inputs[0], intrin, preserveUnitItersAttr(TENSORIZE, attrs[1]));
    return { outputs: [] };
  },
  formatArgs: (inputs, attrs) => `${renderInput(inputs[0]!)}, ${tsLiteral(attrs[0])}${formatPreserveUnitIters(attrs[1])}`,
});
