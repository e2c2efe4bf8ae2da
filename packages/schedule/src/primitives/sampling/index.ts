/**
 * Sampling instructions (TVM's `primitive/sampling.cc`): SamplePerfectTile, SampleCategorical and
 * SampleComputeLocation. They are pure (dropped from a simplified trace when unused), draw from the
 * schedule's random engine, and record the decision they took; replaying a decision reproduces the
 * same outputs without drawing.
 */
import { constIntValue } from "@tessera/ir";
import { ScheduleUsageError } from "../../errors.js";
import { LoopRV } from "../../handles.js";
import { type Decision, type InstructionKind, registerInstruction, renderInput, tsLiteral } from "../../instruction.js";
import { type LocationCandidate, collectComputeLocations } from "./location.js";
import { repairPerfectTile, sampleDiscrete, sampleInt, samplePerfectTileBounded } from "./math.js";

/** `[outputs…] = sch.samplePerfectTile(loop, n, maxInnermostFactor, decision?)`. */
export const SAMPLE_PERFECT_TILE: InstructionKind = registerInstruction({
  name: "SamplePerfectTile",
  method: "samplePerfectTile",
  pure: true,
  singleOutput: false,
  attrNames: ["n", "max_innermost_factor"],
  apply(ctx, inputs, attrs, decision) {
    const prim = "sample-perfect-tile";
    const loop = ctx.loop(inputs[0], prim);
    const n = attrs[0];
    const maxInnermost = attrs[1];
    if (typeof n !== "number" || !Number.isInteger(n) || n < 1) {
      throw new ScheduleUsageError(prim, `n must be a positive integer, got ${tsLiteral(n ?? null)}`);
    }
    if (typeof maxInnermost !== "number" || !Number.isInteger(maxInnermost) || (maxInnermost < 1 && maxInnermost !== -1)) {
      throw new ScheduleUsageError(prim, `max_innermost_factor must be a positive integer or -1 (no bound), got ${tsLiteral(maxInnermost ?? null)}`);
    }
    if (maxInnermost !== -1 && n < 2) {
      throw new ScheduleUsageError(prim, `Cannot tile a loop into ${n} splits (n must be >= 2 when max_innermost_factor is set)`);
    }
    const extent = constIntValue(loop.node.extent);
    let result: number[];
    if (extent === undefined) {
      // A loop of symbolic extent cannot be tiled perfectly: TVM's marker decision.
      result = new Array<number>(n).fill(1);
      result[0] = -1;
    } else if (extent < 1) {
      throw new ScheduleUsageError(prim, `Cannot tile a loop with 0 or negative extent (${extent})`);
    } else if (decision !== undefined) {
      if (!Array.isArray(decision) || decision.length !== n || !decision.every((d) => Number.isInteger(d) && d >= 1)) {
        throw new ScheduleUsageError(prim, `the decision must be a list of n = ${n} positive integers (tile sizes), got ${tsLiteral(decision as Decision)}`);
      }
      result = repairPerfectTile(decision as readonly number[], extent);
    } else {
      result = samplePerfectTileBounded(ctx.rng, extent, n, maxInnermost);
    }
    return { outputs: result.map((v) => ctx.newExprRV(v)), decision: result };
  },
  formatArgs(inputs, attrs, decision) {
    const args = [renderInput(inputs[0]!), tsLiteral(attrs[0]), tsLiteral(attrs[1])];
    if (decision !== undefined) args.push(tsLiteral(decision));
    return args.join(", ");
  },
});

/** `v = sch.sampleCategorical(candidates, probs, decision?)`; the decision is the chosen index. */
export const SAMPLE_CATEGORICAL: InstructionKind = registerInstruction({
  name: "SampleCategorical",
  method: "sampleCategorical",
  pure: true,
  singleOutput: true,
  attrNames: ["candidates", "probs"],
  apply(ctx, _inputs, attrs, decision) {
    const prim = "sample-categorical";
    const [candidates, probs] = attrs;
    if (!Array.isArray(candidates) || !candidates.every((c) => typeof c === "number" && Number.isInteger(c))) {
      throw new ScheduleUsageError(prim, `candidates must be a list of integers, got ${tsLiteral(candidates ?? null)}`);
    }
    if (!Array.isArray(probs) || !probs.every((p) => typeof p === "number" && Number.isFinite(p) && p >= 0)) {
      throw new ScheduleUsageError(prim, `probs must be a list of non-negative numbers, got ${tsLiteral(probs ?? null)}`);
    }
    const values = candidates as readonly number[];
    const weights = probs as readonly number[];
    if (values.length !== weights.length) {
      throw new ScheduleUsageError(
        prim,
        `number of candidates does not match number of probabilities (${values.length} candidates, ${weights.length} probabilities)`,
      );
    }
    if (values.length === 0) throw new ScheduleUsageError(prim, "there must be at least one candidate");
    let index: number;
    if (decision !== undefined) {
      if (typeof decision !== "number" || !Number.isInteger(decision) || decision < 0 || decision >= values.length) {
        throw new ScheduleUsageError(
          prim,
          `Wrong decision value, where n = ${values.length}, but decision is: ${tsLiteral(decision as Decision)} (the decision is an index into candidates)`,
        );
      }
      index = decision;
    } else {
      if (!(weights.reduce((a, b) => a + b, 0) > 0)) {
        throw new ScheduleUsageError(prim, "the probabilities must not all be zero");
      }
      index = sampleDiscrete(ctx.rng, weights);
    }
    return { outputs: [ctx.newExprRV(values[index]!)], decision: index };
  },
  formatArgs(_inputs, attrs, decision) {
    const args = [tsLiteral(attrs[0]), tsLiteral(attrs[1])];
    if (decision !== undefined) args.push(tsLiteral(decision));
    return args.join(", ");
  },
});

/**
 * `l = sch.sampleComputeLocation(block, decision?)`: a loop to compute the block at, or a fresh
 * root mark (decision -1) / inline mark (decision -2), see `LoopRV.rootMark`. A replayed decision that is no
 * longer a candidate snaps to the nearest candidate below it (else the root), as in TVM.
 */
export const SAMPLE_COMPUTE_LOCATION: InstructionKind = registerInstruction({
  name: "SampleComputeLocation",
  method: "sampleComputeLocation",
  pure: true,
  singleOutput: true,
  attrNames: [],
  apply(ctx, inputs, _attrs, decision) {
    const prim = "sample-compute-location";
    const blk = ctx.block(inputs[0], prim);
    if (decision !== undefined && (typeof decision !== "number" || !Number.isInteger(decision) || decision < -2)) {
      throw new ScheduleUsageError(
        prim,
        `the decision must be an integer location (-2 inline, -1 root, k >= 0 a loop position), got ${tsLiteral(decision as Decision)}`,
      );
    }
    const candidates = collectComputeLocations(ctx, blk);
    let chosen: LocationCandidate;
    if (decision !== undefined) {
      const below = candidates.filter((c) => c.index <= decision);
      chosen = below[below.length - 1] ?? { index: -1 };
    } else {
      chosen = candidates[sampleInt(ctx.rng, 0, candidates.length)]!;
    }
    // A fresh mark per call: two sampled locations must stay two handles in the trace.
    const output = chosen.index === -2 ? LoopRV.inlineMark() : chosen.loop === undefined ? LoopRV.rootMark() : ctx.loopRV(chosen.loop);
    return { outputs: [output], decision: chosen.loop === undefined && chosen.index >= 0 ? -1 : chosen.index };
  },
  formatArgs(inputs, _attrs, decision) {
    const args = [renderInput(inputs[0]!)];
    if (decision !== undefined) args.push(tsLiteral(decision));
    return args.join(", ");
  },
});
