/**
 * MutateTileShape: joint moves of the tile decisions that MutateTileSize changes one at a time,
 * so that the search can step between good tilings without passing through the bad ones in
 * between (a single tile mutation of a 256-thread, 256×128 tiling always changes either the
 * threads per block or the block tile, and mostly lands on a slow or invalid one). On the
 * SampleCategorical factors of splits (MultiLevelTiling's "range" thread and register tiles):
 * - across loops: a factor moves from one loop's thread count to another's (the same factor
 *   position of two splits) — the threads per block stay, the warp's and block's aspect change;
 * - within a loop: a factor moves between two sampled factors of one split (threads ↔ register
 *   tile) — the block tile stays, the threads per block and the work per thread change;
 * - transpose: two loops split alike exchange every decision of their tiling (the sampled factors
 *   and the perfect tiles of the split's parts) — a 128×256 tiling becomes the 256×128 one, warp
 *   shape and virtual threads included.
 * A move whose values are not candidates of their decisions is not made (another is tried);
 * perfect tiles that no longer divide are repaired on replay, as after MutateTileSize.
 */
import { ExprRV, type Instruction, LoopRV, type RandomEngine, type Trace } from "@tessera/schedule";
import type { TuneContext } from "../tune-context.js";
import type { Mutator } from "./mutator.js";
import { categoricalSamplesByOutput, instructionsBeforePostproc } from "./trace-queries.js";

/** A split with at least one factor drawn by a SampleCategorical. */
interface SampledSplit {
  readonly split: Instruction;
  /** Per factor position, the categorical that drew it (undefined: a fixed or inferred factor). */
  readonly factors: readonly (Instruction | undefined)[];
  /** Per output loop, the SamplePerfectTile that tiles it further (if any). */
  readonly perfectTiles: readonly (Instruction | undefined)[];
}

export type TileShapeMove = "across" | "within" | "transpose";
const MOVES: readonly TileShapeMove[] = ["across", "within", "transpose"];
const MAX_TRIES = 16;

export class MutateTileShape implements Mutator {
  readonly name = "mutateTileShape";

  apply(trace: Trace, rng: RandomEngine, _ctx: TuneContext): Trace | undefined {
    const splits = sampledSplits(trace);
    if (splits.length === 0) return undefined;
    for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
      const out = tileShapeMove(trace, MOVES[rng.int(0, MOVES.length)]!, rng, splits);
      if (out !== undefined) return out;
    }
    return undefined;
  }
}

/** One move of the given kind (undefined when the drawn one is not possible). */
export function tileShapeMove(trace: Trace, move: TileShapeMove, rng: RandomEngine, splits = sampledSplits(trace)): Trace | undefined {
  if (splits.length === 0) return undefined;
  if (move === "across") return moveAcross(trace, splits, rng);
  return move === "within" ? moveWithin(trace, splits, rng) : transpose(trace, splits, rng);
}

/** The splits of the trace (before postprocessing) with categorical factors, in trace order. */
export function sampledSplits(trace: Trace): SampledSplit[] {
  const insts = instructionsBeforePostproc(trace);
  const categoricals = categoricalSamplesByOutput(insts);
  const tileOf = new Map<LoopRV, Instruction>();
  for (const inst of insts) {
    const loop = inst.inputs[0];
    if (inst.kind.name === "SamplePerfectTile" && loop instanceof LoopRV) tileOf.set(loop, inst);
  }
  const out: SampledSplit[] = [];
  for (const inst of insts) {
    if (inst.kind.name !== "Split") continue;
    const factors = inst.inputs.slice(1).map((f) => (f instanceof ExprRV ? categoricals.get(f) : undefined));
    if (!factors.some((f) => f !== undefined)) continue;
    const perfectTiles = inst.outputs.map((o) => (o instanceof LoopRV ? tileOf.get(o) : undefined));
    out.push({ split: inst, factors, perfectTiles });
  }
  return out;
}

function candidatesOf(inst: Instruction): number[] {
  const c = inst.attrs[0];
  return Array.isArray(c) ? c.map(Number) : [];
}

function valueOf(trace: Trace, inst: Instruction): number | undefined {
  const d = trace.getDecision(inst);
  return typeof d === "number" ? candidatesOf(inst)[d] : undefined;
}

/** Sets categorical `inst` to the candidate `value` (undefined when it is not one). */
function withValue(trace: Trace, inst: Instruction, value: number): Trace | undefined {
  const index = candidatesOf(inst).indexOf(value);
  return index < 0 ? undefined : trace.withDecision(inst, index, { removePostproc: true });
}

/** Moves a factor between two categoricals whose product must stay: a × f, b / f. */
function moveFactor(trace: Trace, a: Instruction, b: Instruction, rng: RandomEngine): Trace | undefined {
  const va = valueOf(trace, a);
  const vb = valueOf(trace, b);
  if (va === undefined || vb === undefined) return undefined;
  const options: [number, number][] = [];
  for (const f of divisorsAbove1(vb)) if (candidatesOf(a).includes(va * f) && candidatesOf(b).includes(vb / f)) options.push([va * f, vb / f]);
  for (const f of divisorsAbove1(va)) if (candidatesOf(a).includes(va / f) && candidatesOf(b).includes(vb * f)) options.push([va / f, vb * f]);
  if (options.length === 0) return undefined;
  const [na, nb] = options[rng.int(0, options.length)]!;
  const first = withValue(trace, a, na);
  return first === undefined ? undefined : withValue(first, b, nb);
}

function moveAcross(trace: Trace, splits: readonly SampledSplit[], rng: RandomEngine): Trace | undefined {
  if (splits.length < 2) return undefined;
  const s = splits[rng.int(0, splits.length)]!;
  const positions = s.factors.flatMap((f, p) => (f === undefined ? [] : [p]));
  const p = positions[rng.int(0, positions.length)]!;
  // Only splits made alike (a spatial loop's [outer, threads, registers], not the k chunk's split).
  const others = splits.filter((t) => t !== s && sameStructure(s, t));
  if (others.length === 0) return undefined;
  const t = others[rng.int(0, others.length)]!;
  return moveFactor(trace, s.factors[p]!, t.factors[p]!, rng);
}

function moveWithin(trace: Trace, splits: readonly SampledSplit[], rng: RandomEngine): Trace | undefined {
  const s = splits[rng.int(0, splits.length)]!;
  const sampled = s.factors.filter((f): f is Instruction => f !== undefined);
  if (sampled.length < 2) return undefined;
  const x = rng.int(0, sampled.length);
  let y = rng.int(0, sampled.length - 1);
  if (y >= x) y++;
  return moveFactor(trace, sampled[x]!, sampled[y]!, rng);
}

/** Two splits with the same factor layout and candidates exchange all their tiling decisions. */
function transpose(trace: Trace, splits: readonly SampledSplit[], rng: RandomEngine): Trace | undefined {
  const paired = splits.filter((s) => splits.some((t) => t !== s && sameLayout(s, t)));
  if (paired.length === 0) return undefined;
  const s = paired[rng.int(0, paired.length)]!;
  const alike = splits.filter((t) => t !== s && sameLayout(s, t));
  const t = alike[rng.int(0, alike.length)]!;
  const pairs: [Instruction, Instruction][] = [];
  s.factors.forEach((f, p) => f !== undefined && pairs.push([f, t.factors[p]!]));
  s.perfectTiles.forEach((tile, p) => tile !== undefined && pairs.push([tile, t.perfectTiles[p]!]));
  let out: Trace = trace.withDecision(pairs[0]![0], trace.getDecision(pairs[0]![0]), { removePostproc: true });
  let changed = false;
  for (const [a, b] of pairs) {
    const da = trace.getDecision(a);
    const db = trace.getDecision(b);
    if (da === undefined || db === undefined) return undefined;
    if (JSON.stringify(da) !== JSON.stringify(db)) changed = true;
    out = out.withDecision(a, db, { removePostproc: true }).withDecision(b, da, { removePostproc: true });
  }
  return changed ? out : undefined;
}

/** The same factors sampled and the same parts tiled further. */
function sameStructure(s: SampledSplit, t: SampledSplit): boolean {
  return (
    s.factors.length === t.factors.length &&
    s.perfectTiles.length === t.perfectTiles.length &&
    s.factors.every((f, p) => (f === undefined) === (t.factors[p] === undefined)) &&
    s.perfectTiles.every((a, p) => (a === undefined) === (t.perfectTiles[p] === undefined))
  );
}

/** The same structure, and the same candidates for every sampled decision. */
function sameLayout(s: SampledSplit, t: SampledSplit): boolean {
  if (!sameStructure(s, t)) return false;
  const sameCandidates = s.factors.every((f, p) => {
    const g = t.factors[p];
    if ((f === undefined) !== (g === undefined)) return false;
    return f === undefined || JSON.stringify(f.attrs) === JSON.stringify(g!.attrs);
  });
  const sameTiles = s.perfectTiles.every((a, p) => {
    const b = t.perfectTiles[p];
    if ((a === undefined) !== (b === undefined)) return false;
    return a === undefined || JSON.stringify(a.attrs) === JSON.stringify(b!.attrs);
  });
  return sameCandidates && sameTiles;
}

function divisorsAbove1(n: number): number[] {
  const out: number[] = [];
  for (let d = 2; d <= n; d++) if (n % d === 0) out.push(d);
  return out;
}
