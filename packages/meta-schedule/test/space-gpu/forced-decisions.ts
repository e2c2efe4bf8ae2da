/**
 * A design space's trace with its sampling decisions forced, for tests and the GPU checks that run a
 * chosen point of a space (no vitest here: ms-gpu-space-check bundles it).
 */
import type { Decision, Trace } from "@tessera/schedule";

/**
 * The trace with its sampling decisions replaced in order of appearance: perfect tiles from
 * `tiles`, categorical choices (by candidate value) from `choices`.
 */
export function withForcedDecisions(trace: Trace, tiles: readonly number[][], choices: readonly number[]): Trace {
  let out = trace;
  let t = 0;
  let c = 0;
  for (const inst of trace.instructions) {
    if (inst.kind.name === "EnterPostproc") break;
    let decision: Decision | undefined;
    if (inst.kind.name === "SamplePerfectTile") decision = tiles[t++];
    else if (inst.kind.name === "SampleCategorical") {
      const candidates = inst.attrs[0] as number[];
      const want = choices[c++];
      const index = candidates.indexOf(want!);
      if (index < 0) throw new Error(`forced choice ${want} is not among the candidates [${candidates.join(", ")}]`);
      decision = index;
    } else continue;
    if (decision === undefined) throw new Error(`not enough forced decisions for instruction ${inst.kind.name}`);
    out = out.withDecision(inst, decision);
  }
  if (t !== tiles.length || c !== choices.length) throw new Error(`used ${t} of ${tiles.length} tiles and ${c} of ${choices.length} choices`);
  return out;
}
