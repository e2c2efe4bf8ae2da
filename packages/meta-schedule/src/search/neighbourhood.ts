/**
 * The traces one decision away from a trace: every other allowed candidate of each
 * SampleCategorical, and for each SamplePerfectTile every move of one prime factor from one tile
 * to another (the innermost within the instruction's max_innermost_factor) — the smallest steps
 * of MutateTileSize. The evolutionary search measures such neighbours of its best programs
 * (`EvolutionarySearchConfig.neighbourShare`), so that a knob whose effect the cost model has not
 * learned yet is still tried where it matters most.
 */
import type { Instruction, Trace } from "@tessera/schedule";
import { categoricalCandidate, instructionsBeforePostproc } from "../mutator/trace-queries.js";

export interface NeighbourTrace {
  readonly trace: Trace;
  /** Which sampling instruction changed (its position among the trace's sampling instructions). */
  readonly decision: number;
}

export function neighbourTraces(trace: Trace): NeighbourTrace[] {
  const out: NeighbourTrace[] = [];
  const samplers = instructionsBeforePostproc(trace).filter((i) => i.kind.name.startsWith("Sample"));
  samplers.forEach((inst, decision) => {
    const alternatives = inst.kind.name === "SampleCategorical" ? categoricalAlternatives(trace, inst) : inst.kind.name === "SamplePerfectTile" ? tileMoves(trace, inst) : [];
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
  const maxInnermost = typeof inst.attrs[1] === "number" ? inst.attrs[1] : -1;
  const last = tiles.length - 1;
  const out: number[][] = [];
  tiles.forEach((from, x) => {
    for (const p of primeFactors(from)) {
      tiles.forEach((to, y) => {
        if (y === x || (y === last && maxInnermost > 0 && to * p > maxInnermost)) return;
        const moved = [...tiles];
        moved[x] = from / p;
        moved[y] = to * p;
        out.push(moved);
      });
    }
  });
  return out;
}

/** The distinct prime factors of `n`. */
function primeFactors(n: number): number[] {
  const out: number[] = [];
  for (let p = 2, m = n; m > 1; p++) {
    if (p * p > m) {
      out.push(m); // what is left is prime
      break;
    }
    if (m % p !== 0) continue;
    out.push(p);
    while (m % p === 0) m /= p;
  }
  return out;
}
