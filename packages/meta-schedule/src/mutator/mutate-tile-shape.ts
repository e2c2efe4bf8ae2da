/**
 * MutateTileShape: joint moves of tile decisions (a factor between two loops or two levels, or a
 * transpose) that keep threads per block or the block tile; details in docs/architecture/meta-schedule-notes.md.
 */
import { ExprRV, type Instruction, LoopRV, type RandomEngine, type Trace } from "@tessera/schedule";
import type { TuneContext } from "../tune-context.js";
import type { Mutator } from "../interfaces/mutator.js";
import { categoricalSamplesByOutput, instructionsBeforePostproc } from "./trace-queries.js";

/** A split with at least one factor drawn by a SampleCategorical. */
interface SampledSplit {
  readonly split: Instruction;
  /** Per factor position, the categorical that drew it (undefined: a fixed or inferred factor). */
  readonly factors: readonly (Instruction | undefined)[];
  /** Per output loop, the SamplePerfectTile that tiles it further (if any). */
  readonly perfectTiles: readonly (Instruction | undefined)[];
}

export type TileShapeMove = "across" | "within" | "transpose" | "tilesAcross" | "tilesTranspose";
const MOVES: readonly TileShapeMove[] = ["across", "within", "transpose", "tilesAcross", "tilesTranspose"];
const MAX_TRIES = 16;

export class MutateTileShape implements Mutator {
  readonly name = "mutateTileShape";

  apply(trace: Trace, rng: RandomEngine, _ctx: TuneContext): Trace | undefined {
    const splits = sampledSplits(trace);
    const tiles = perfectTileDecisions(trace);
    if (splits.length === 0 && tiles.length < 2) return undefined;
    for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
      const out = tileShapeMove(trace, MOVES[rng.int(0, MOVES.length)]!, rng, splits, tiles);
      if (out !== undefined) return out;
    }
    return undefined;
  }
}

/** One move of the given kind (undefined when the drawn one is not possible). */
export function tileShapeMove(
  trace: Trace,
  move: TileShapeMove,
  rng: RandomEngine,
  splits = sampledSplits(trace),
  tiles = perfectTileDecisions(trace),
): Trace | undefined {
  switch (move) {
    case "across":
      return splits.length === 0 ? undefined : moveAcross(trace, splits, rng);
    case "within":
      return splits.length === 0 ? undefined : moveWithin(trace, splits, rng);
    case "transpose":
      return splits.length === 0 ? undefined : transpose(trace, splits, rng);
    case "tilesAcross":
      return tilesAcross(trace, tiles, rng);
    case "tilesTranspose":
      return tilesTranspose(trace, tiles, rng);
  }
}

/** The SamplePerfectTile instructions (before postprocessing) of two levels or more. */
export function perfectTileDecisions(trace: Trace): Instruction[] {
  return instructionsBeforePostproc(trace).filter((inst) => {
    const d = trace.getDecision(inst);
    return inst.kind.name === "SamplePerfectTile" && Array.isArray(d) && d.length >= 2;
  });
}

function tileDecision(trace: Trace, inst: Instruction): number[] {
  return [...(trace.getDecision(inst) as number[])];
}

/** Decisions drawn alike (levels and innermost bound): the same level of a rule's tiling of two loops. */
function sameAttrs(a: Instruction, b: Instruction): boolean {
  return JSON.stringify(a.attrs) === JSON.stringify(b.attrs);
}

/** Whether `tiles` keeps the decision's innermost bound (TVM's max_innermost_factor, -1: none). */
function withinInnermostBound(inst: Instruction, tiles: readonly number[]): boolean {
  const bound = typeof inst.attrs[1] === "number" ? inst.attrs[1] : -1;
  return bound <= 0 || tiles.at(-1)! <= bound;
}

function tilesAcross(trace: Trace, tiles: readonly Instruction[], rng: RandomEngine): Trace | undefined {
  if (tiles.length < 2) return undefined;
  const a = tiles[rng.int(0, tiles.length)]!;
  const n = tileDecision(trace, a).length;
  const others = tiles.filter((t) => t !== a && tileDecision(trace, t).length === n && sameAttrs(a, t));
  if (others.length === 0) return undefined;
  const b = others[rng.int(0, others.length)]!;
  const p = rng.int(0, n);
  let q = rng.int(0, n - 1);
  if (q >= p) q++;
  const [ta, tb] = [tileDecision(trace, a), tileDecision(trace, b)];
  // f leaves level q of a and level p of b: it must divide both.
  const factors = divisorsAbove1(ta[q]!).filter((f) => tb[p]! % f === 0);
  if (factors.length === 0) return undefined;
  return movedAcross(trace, a, b, p, q, factors[rng.int(0, factors.length)]!);
}

/**
 * `trace` with factor `f` moved from level q to level p of tile decision `a` and from level p to
 * level q of `b` (f divides a's level q and b's level p), postprocessing dropped; undefined where
 * either would break its innermost bound.
 */
function movedAcross(trace: Trace, a: Instruction, b: Instruction, p: number, q: number, f: number): Trace | undefined {
  const [ta, tb] = [tileDecision(trace, a), tileDecision(trace, b)];
  ta[p] = ta[p]! * f;
  ta[q] = ta[q]! / f;
  tb[p] = tb[p]! / f;
  tb[q] = tb[q]! * f;
  if (!withinInnermostBound(a, ta) || !withinInnermostBound(b, tb)) return undefined;
  return trace.withDecision(a, ta, { removePostproc: true }).withDecision(b, tb, { removePostproc: true });
}

/** Whether two tile decisions can be exchanged: drawn alike, of one product (loops of one extent), and different. */
function alikeTiles(trace: Trace, a: Instruction, b: Instruction): boolean {
  const product = (xs: readonly number[]) => xs.reduce((x, y) => x * y, 1);
  const [ta, tb] = [tileDecision(trace, a), tileDecision(trace, b)];
  return a !== b && sameAttrs(a, b) && ta.length === tb.length && product(ta) === product(tb) && JSON.stringify(ta) !== JSON.stringify(tb);
}

function tilesTranspose(trace: Trace, tiles: readonly Instruction[], rng: RandomEngine): Trace | undefined {
  const alike = (a: Instruction, b: Instruction) => alikeTiles(trace, a, b);
  const paired = tiles.filter((a) => tiles.some((b) => alike(a, b)));
  if (paired.length === 0) return undefined;
  const a = paired[rng.int(0, paired.length)]!;
  const partners = tiles.filter((b) => alike(a, b));
  const b = partners[rng.int(0, partners.length)]!;
  const [ta, tb] = [tileDecision(trace, a), tileDecision(trace, b)];
  if (!withinInnermostBound(a, tb) || !withinInnermostBound(b, ta)) return undefined;
  return trace.withDecision(a, tb, { removePostproc: true }).withDecision(b, ta, { removePostproc: true });
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

function decisionValue(trace: Trace, inst: Instruction): number | undefined {
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
  const va = decisionValue(trace, a);
  const vb = decisionValue(trace, b);
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
