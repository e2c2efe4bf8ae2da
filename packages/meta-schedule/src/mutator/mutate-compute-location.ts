/**
 * MutateComputeLocation (TVM's `Mutator::MutateComputeLocation`): moves a block sampled by
 * SampleComputeLocation to another of its valid locations (inline, root, or a loop), found by
 * replaying the trace on the workload up to that sampling.
 */
import { TesseraError } from "@tessera/ir";
import type { BlockRV, Instruction, RandomEngine, Schedule, Trace } from "@tessera/schedule";
import type { TuneContext } from "../tune-context.js";
import type { Mutator } from "../interfaces/mutator.js";
import { replayVisiting } from "./replay-probe.js";
import { pick, withNewDecision } from "./trace-queries.js";

interface LocationCandidate {
  readonly inst: Instruction;
  /** The valid locations other than the current one. */
  readonly alternatives: readonly number[];
}

export function mutateComputeLocation(): Mutator {
  return {
    name: "mutateComputeLocation",
    apply(trace: Trace, rng: RandomEngine, ctx: TuneContext): Trace | undefined {
      const candidates = computeLocationCandidates(trace, ctx);
      if (candidates.length === 0) return undefined;
      const chosen = pick(candidates, rng);
      return withNewDecision(trace, chosen.inst, pick(chosen.alternatives, rng));
    },
  };
}

function computeLocationCandidates(trace: Trace, ctx: TuneContext): LocationCandidate[] {
  const out: LocationCandidate[] = [];
  replayVisiting(trace, ctx.workload.func, (sch, inst, inputs) => {
    const current = trace.getDecision(inst);
    if (inst.kind.name !== "SampleComputeLocation" || typeof current !== "number") return;
    let locations: number[];
    try {
      locations = validLocations(sch, inputs[0] as BlockRV);
    } catch (err) {
      // The block is not there on replay: the trace belongs to another program; nothing to move.
      if (err instanceof TesseraError) return;
      throw err;
    }
    const alternatives = locations.filter((l) => l !== current);
    if (alternatives.length > 0) out.push({ inst, alternatives });
  });
  return out;
}

/**
 * The locations SampleComputeLocation accepts for `block` now, highest first. A decision that is
 * not a candidate snaps to the nearest candidate below it, so probing from above walks them all.
 */
export function validLocations(sch: Schedule, block: BlockRV): number[] {
  const snap = (decision: number): number => {
    const probe = sch.copy();
    probe.sampleComputeLocation(block, decision);
    return probe.trace.getDecision(probe.trace.instructions.at(-1)!) as number;
  };
  const found: number[] = [];
  let next = Number.MAX_SAFE_INTEGER;
  for (;;) {
    const location = snap(next);
    found.push(location);
    if (location < 0) break;
    next = location - 1;
  }
  if (snap(-2) === -2) found.push(-2);
  return found;
}
