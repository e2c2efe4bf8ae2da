/**
 * The traces one decision away from a trace: every other allowed candidate of each
 * SampleCategorical, and for each SamplePerfectTile every move of one prime factor from one tile
 * to another (the innermost within the instruction's max_innermost_factor) — the smallest steps
 * of MutateTileSize. The evolutionary search measures such neighbours of its best programs
 * (`EvolutionarySearchConfig.neighbourShare`), so that a knob whose effect the cost model has not
 * learned yet is still tried where it matters most.
 */
import { type Instruction, type Trace, factorize } from "@tessera/schedule";
import { categoricalCandidate, instructionsBeforePostproc, tileMayGrow } from "../mutator/trace-queries.js";

export interface NeighbourTrace {
  readonly trace: Trace;
  /** Which sampling instruction changed (its position among the trace's sampling instructions). */
  readonly decision: number;
}

export function neighbourTraces(trace: Trace): NeighbourTrace[] {
  const out: NeighbourTrace[] = [];
  const samplers = instructionsBeforePostproc(trace).filter((i) => i.kind.name.startsWith("Sample"));
  samplers.forEach((inst, decision) => {
    const alternatives =
      inst.kind.name === "SampleCategorical" ? categoricalAlternatives(trace, inst) : inst.kind.name === "SamplePerfectTile" ? tileMoves(trace, inst) : [];
    for (const d of alternatives) out.push({ trace: trace.withDecision(inst, d, { removePostproc: true }), decision });
  });
  return out;
}

/** The other indices of a SampleCategorical that its probabilities allow. */
function categoricalAlternatives(trace: Trace, inst: Instruction): number[] {
  const c = categoricalCandidate(trace, inst);
  return c === undefined ? [] : c.probs.map((_, k) => k).filter((k) => k !== c.decision && c.probs[k]! > 0);
}

/** Every tile vector reached by moving one prime factor of one tile to another. */
function tileMoves(trace: Trace, inst: Instruction): number[][] {
  const tiles = trace.getDecision(inst);
  if (!Array.isArray(tiles) || !tiles.every((t): t is number => typeof t === "number" && Number.isInteger(t) && t >= 1)) return [];
  const out: number[][] = [];
  tiles.forEach((from, x) => {
    for (const [p] of factorize(from)) {
      tiles.forEach((to, y) => {
        if (y === x || !tileMayGrow(inst, tiles, y, p)) return;
        const moved = [...tiles];
        moved[x] = from / p;
        moved[y] = to * p;
        out.push(moved);
      });
    }
  });
  return out;
}
