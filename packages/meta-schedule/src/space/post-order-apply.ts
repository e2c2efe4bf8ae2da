/**
 * TVM's PostOrderApply space generator: every schedule rule, in order, is applied to every block
 * of the workload, in post order (the blocks collected once, before any rule, and visited from
 * the last collected — the root — to the first). A rule may return several schedules; each goes
 * on with the blocks left. Blocks that vanished (inlined by an earlier rule) are skipped, and so
 * are blocks annotated `schedule_rule` (a custom rule's business) and blocks inside a block
 * annotated `meta_schedule.auto_tensorize` (the body of a tensor intrinsic, as a tensor-core rule
 * left it).
 */
import { Schedule } from "@tessera/schedule";
import { TesseraError } from "@tessera/ir";
import { SpaceGenerationError } from "../errors.js";
import type { WeightedMutator } from "../interfaces/mutator.js";
import type { Postproc } from "../interfaces/postproc.js";
import { blockNamesInside, blockNamesPostOrder, blockRealizeOf } from "../rules/multi-level-tiling/block-query.js";
import { AUTO_TENSORIZE } from "../schedule-utils/annotations.js";
import type { ScheduleRule } from "../interfaces/schedule-rule.js";
import type { TuneContext } from "../tune-context.js";
import type { SpaceGenerator } from "../interfaces/space-generator.js";

export interface PostOrderApplyOptions {
  readonly rules: readonly ScheduleRule[];
  readonly postprocs: readonly Postproc[];
  readonly mutators: readonly WeightedMutator[];
}

export class PostOrderApply implements SpaceGenerator {
  readonly name = "postOrderApply";
  readonly rules: readonly ScheduleRule[];
  readonly postprocs: readonly Postproc[];
  readonly mutators: readonly WeightedMutator[];

  constructor(opts: PostOrderApplyOptions) {
    this.rules = opts.rules;
    this.postprocs = opts.postprocs;
    this.mutators = opts.mutators;
  }

  initialize(ctx: TuneContext): void {
    for (const r of this.rules) r.initialize?.(ctx);
    for (const p of this.postprocs) p.initialize?.(ctx);
    for (const m of this.mutators) m.mutator.initialize?.(ctx);
  }

  generateDesignSpace(ctx: TuneContext): Schedule[] {
    const first = new Schedule(ctx.workload.func, { seed: ctx.rng.forkSeed() });
    const blockNames = blockNamesPostOrder(first.func);
    // One handle per block, taken once (TVM collects BlockRVs up front); copies share them.
    const handles = new Map(blockNames.map((name) => [name, first.getBlock(name)] as const));
    let result: Schedule[] = [first];
    for (const rule of this.rules) {
      const stack: { sch: Schedule; left: string[] }[] = result.map((sch) => ({ sch, left: [...blockNames] }));
      result = [];
      while (stack.length > 0) {
        const { sch, left } = stack.pop()!;
        const name = left.pop();
        if (name === undefined) {
          result.push(sch);
          continue;
        }
        const realize = blockRealizeOf(sch.func, name);
        if (realize === undefined || realize.block.annotations["schedule_rule"] !== undefined || insideIntrinsic(sch, name)) {
          stack.push({ sch, left });
          continue;
        }
        let applied: Schedule[];
        try {
          applied = rule.apply(sch, handles.get(name)!, ctx);
        } catch (err) {
          if (!(err instanceof TesseraError)) throw err;
          throw new SpaceGenerationError(`postOrderApply: rule ${rule.name} failed on block "${name}" of ${ctx.taskName}: ${err.message}`);
        }
        for (const s of applied) stack.push({ sch: s, left: [...left] });
      }
    }
    return result;
  }
}

/** Whether block `name` is inside a block that a rule marked for tensorization. */
function insideIntrinsic(sch: Schedule, name: string): boolean {
  return blockNamesInside(sch.func, AUTO_TENSORIZE).has(name);
}
