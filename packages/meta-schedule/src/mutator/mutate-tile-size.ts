/**
 * TVM's MutateTileSize: picks a SamplePerfectTile decision and moves a divisor of one tile size
 * to another tile (the innermost staying within the instruction's max_innermost_factor), or picks
 * the vector width of a cooperative fetch (a SampleCategorical annotated
 * `meta_schedule.cooperative_fetch`) and takes another candidate — as it does for a tile size
 * sampled by a SampleCategorical (MultiLevelTiling's thread and register tiles in "range" mode;
 * the perfect tiles that follow are repaired on replay).
 */
import type { Instruction, RandomEngine, Trace } from "@tessera/schedule";
import { COOPERATIVE_FETCH } from "../schedule-utils/annotations.js";
import type { TuneContext } from "../tune-context.js";
import type { Mutator } from "../interfaces/mutator.js";
import { categoricalsFeeding, categoricalsSplitting } from "./sampled-annotations.js";
import { instructionsBeforePostproc, tileMayGrow } from "./trace-queries.js";

/** Tries per tile decision before giving up on it (TVM loops until it finds one). */
const MAX_TRIES = 32;

export class MutateTileSize implements Mutator {
  readonly name = "mutateTileSize";

  apply(trace: Trace, rng: RandomEngine, _ctx: TuneContext): Trace | undefined {
    const tiles = instructionsBeforePostproc(trace).filter((inst) => {
      const d = trace.getDecision(inst);
      return inst.kind.name === "SamplePerfectTile" && Array.isArray(d) && d.some((t) => typeof t === "number" && t > 1);
    });
    const vectors = [...categoricalsFeeding(trace, new Set([COOPERATIVE_FETCH])), ...categoricalsSplitting(trace)];
    const total = tiles.length + vectors.length;
    if (total === 0) return undefined;
    const pick = rng.int(0, total);
    return pick < tiles.length ? mutateTile(trace, tiles[pick]!, rng) : mutateCategorical(trace, vectors[pick - tiles.length]!, rng);
  }
}

function mutateTile(trace: Trace, inst: Instruction, rng: RandomEngine): Trace | undefined {
  const tiles = [...(trace.getDecision(inst) as number[])];
  const n = tiles.length;
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const x = rng.int(0, n);
    if (tiles[x]! <= 1) continue;
    let y = rng.int(0, n - 1);
    if (y >= x) y++;
    const factors = divisors(tiles[x]!).filter((f) => f > 1);
    const allowed = factors.filter((f) => tileMayGrow(inst, tiles, y, f));
    if (allowed.length === 0) continue;
    const f = allowed[rng.int(0, allowed.length)]!;
    tiles[x] = tiles[x]! / f;
    tiles[y] = tiles[y]! * f;
    return trace.withDecision(inst, tiles, { removePostproc: true });
  }
  return undefined;
}

/** Another candidate of a SampleCategorical, uniformly among the others. */
export function mutateCategorical(trace: Trace, inst: Instruction, rng: RandomEngine): Trace | undefined {
  const candidates = inst.attrs[0];
  const current = trace.getDecision(inst);
  if (!Array.isArray(candidates) || candidates.length < 2 || typeof current !== "number") return undefined;
  let next = rng.int(0, candidates.length - 1);
  if (next >= current) next++;
  return trace.withDecision(inst, next, { removePostproc: true });
}

function divisors(n: number): number[] {
  const out: number[] = [];
  for (let d = 1; d <= n; d++) if (n % d === 0) out.push(d);
  return out;
}
