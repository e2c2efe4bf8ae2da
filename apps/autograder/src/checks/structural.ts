/**
 * Interprets the manifest's structural checks on a scheduled function (the trusted replay of a
 * student's trace). Each check passes or fails with feedback in the student's terms: what was
 * expected, what the program has instead.
 */
import { type For, type PrimExpr, type Var, intImm, simplify, substitute } from "@tessera/ir";
import { type Check, type LoopSelector, type Size, resolveSize } from "../manifest/index.js";
import { type BlockSite, type ProgramView, constExtent, describeLoop, loopsFeeding } from "./program-view.js";
import { ownLoops, readStage, writeStage } from "./stages.js";

export interface CheckOutcome {
  readonly passed: boolean;
  /** Why it failed (empty when it passed). */
  readonly feedback: string;
}

export type StructuralCheck = Exclude<Check, { kind: "numerics" | "trace-replays" | "tuned-time" }>;

export function isStructural(check: Check): check is StructuralCheck {
  return check.kind !== "numerics" && check.kind !== "trace-replays" && check.kind !== "tuned-time";
}

const AXES = ["i", "j", "k"] as const;

const pass: CheckOutcome = { passed: true, feedback: "" };
const fail = (feedback: string): CheckOutcome => ({ passed: false, feedback });

export function runStructuralCheck(check: StructuralCheck, view: ProgramView, tiles: Record<string, number>): CheckOutcome {
  const size = (s: Size): number => resolveSize(s, tiles);
  switch (check.kind) {
    case "split": {
      const s = requireBlock(view, check.block);
      if (typeof s === "string") return fail(s);
      const loops = loopsFeeding(s, AXES.indexOf(check.axis));
      const want = size(check.factor);
      if (loops.length < 2) return fail(`the ${check.axis} loop of "${check.block}" is not split (loops over ${check.axis}: ${list(loops)})`);
      // Split by `want`: the loops inside some split point cover exactly `want` iterations
      // (robust to later tasks splitting the inner loop again).
      const extents = loops.map((l) => constExtent(l) ?? Number.NaN);
      const inner = extents.map((_, k) => product(extents.slice(k))).slice(1);
      if (!inner.includes(want)) return fail(`the ${check.axis} loop of "${check.block}" is not split into tiles of ${want} (its loops: ${list(loops)})`);
      return pass;
    }
    case "bound": {
      const s = requireBlock(view, check.block);
      if (typeof s === "string") return fail(s);
      const loop = selectLoop(s, { ...check.loop, thread: undefined }, size);
      if (loop === undefined) return fail(`no loop over ${describeSelector(check.loop, size)} around "${check.block}"`);
      if (loop.threadTag !== check.thread) {
        return fail(`${describeLoop(loop)} should be bound to ${check.thread}${loop.threadTag === undefined ? " (it is not bound)" : ""}`);
      }
      return pass;
    }
    case "loop-order": {
      const s = requireBlock(view, check.block);
      if (typeof s === "string") return fail(s);
      // Each selector matches the first suitable loop after the previous one's, so a loop that
      // happens to fit an earlier selector too (a block loop of extent tileX) is not taken twice.
      let last = -1;
      for (const selector of check.loops) {
        const feeding = loopsFeeding(s, AXES.indexOf(selector.axis));
        const at = s.loops.findIndex((loop, index) => index > last && feeding.includes(loop) && matchesExtentAndThread(loop, selector, size));
        if (at < 0) {
          const where = last < 0 ? "" : ` inside ${describeLoop(s.loops[last]!)}`;
          return fail(`no loop over ${describeSelector(selector, size)}${where}; the loops around "${check.block}" are ${list(s.loops)}`);
        }
        last = at;
      }
      return pass;
    }
    case "cache-stage":
      return cacheStage(check, view, size);
    case "cooperative-fetch":
      return cooperativeFetch(check, view, size);
    case "inlined": {
      if (view.blocks.has(check.block)) return fail(`the block "${check.block}" still exists: inline it with reverseComputeInline`);
      const producer = requireBlock(view, check.into.writeStageOf);
      if (typeof producer === "string") return fail(producer);
      const stage = writeStage(view, producer, "", check.into.scope);
      if (stage?.writeBack === undefined) return fail(`"${check.into.writeStageOf}" has no ${check.into.scope} write stage to fuse "${check.block}" into`);
      const writesOutput = stage.writeBack.block.writes.some((w) => view.params.includes(w.buffer));
      if (!writesOutput) return fail(`the write-back block "${stage.writeBack.block.name}" does not write the function's output`);
      return pass;
    }
  }
}

function requireBlock(view: ProgramView, name: string): BlockSite | string {
  const sites = view.blocks.get(name);
  if (sites === undefined) return `there is no block named "${name}"`;
  if (sites.length > 1) return `there are ${sites.length} blocks named "${name}"`;
  return sites[0]!;
}

/** The outermost loop over the selector's axis with its extent and thread (both optional). */
function selectLoop(s: BlockSite, sel: LoopSelector, size: (s: Size) => number): For | undefined {
  const feeding = loopsFeeding(s, AXES.indexOf(sel.axis));
  return feeding.find((l) => matchesExtentAndThread(l, sel, size));
}

function matchesExtentAndThread(loop: For, sel: LoopSelector, size: (s: Size) => number): boolean {
  const extent = sel.extent === undefined ? undefined : size(sel.extent);
  return (extent === undefined || constExtent(loop) === extent) && (sel.thread === undefined || loop.threadTag === sel.thread);
}

function describeSelector(sel: LoopSelector, size: (s: Size) => number): string {
  const bits: string[] = [sel.axis];
  if (sel.extent !== undefined) bits.push(`with extent ${size(sel.extent)}`);
  if (sel.thread !== undefined) bits.push(`bound to ${sel.thread}`);
  return bits.join(" ");
}

function list(loops: readonly For[]): string {
  return loops.length === 0 ? "none" : loops.map(describeLoop).join(", ");
}

function product(xs: readonly number[]): number {
  return xs.reduce((a, b) => a * b, 1);
}

function cacheStage(check: Extract<StructuralCheck, { kind: "cache-stage" }>, view: ProgramView, size: (s: Size) => number): CheckOutcome {
  const of = requireBlock(view, check.of);
  if (typeof of === "string") return fail(of);
  let stage: BlockSite | undefined;
  if (check.direction === "read") {
    stage = readStage(view, of, check.buffer, check.scope);
    if (stage === undefined) return fail(`"${check.of}" does not read ${check.buffer} through a ${check.scope} copy (cacheRead)`);
  } else {
    const w = writeStage(view, of, check.buffer, check.scope);
    if (w === undefined) return fail(`"${check.of}" does not write ${check.buffer} into ${check.scope} memory (cacheWrite)`);
    if (w.writeBack === undefined) return fail(`nothing writes ${w.cache} back`);
    stage = w.writeBack;
  }
  if (check.under !== undefined) {
    const loop = selectLoop(of, check.under, size);
    if (loop === undefined) return fail(`"${check.of}" has no loop over ${describeSelector(check.under, size)}`);
    if (!stage.loops.includes(loop)) {
      return fail(`the ${check.scope} stage "${stage.block.name}" is not under ${describeLoop(loop)}: place it with ${check.direction === "read" ? "computeAt" : "reverseComputeAt"}`);
    }
  }
  if (check.region !== undefined) {
    const want = product(check.region.map(size));
    const own = ownLoops(stage, of);
    const got = product(own.map((l) => constExtent(l) ?? Number.NaN));
    if (got !== want) {
      return fail(`the stage "${stage.block.name}" copies ${Number.isNaN(got) ? "a symbolic number of" : got} elements each time; expected ${check.region.map(size).join("×")} = ${want} (its own loops: ${list(own)})`);
    }
  }
  return pass;
}

function cooperativeFetch(check: Extract<StructuralCheck, { kind: "cooperative-fetch" }>, view: ProgramView, size: (s: Size) => number): CheckOutcome {
  const stage = [...view.blocks.values()].flat().find((s) => {
    const src = s.block.body.kind === "BufferStore" && s.block.body.value.kind === "BufferLoad" ? s.block.body.value.buffer.name : undefined;
    return src === check.buffer && s.block.writes.some((w) => w.buffer.scope === check.scope);
  });
  if (stage === undefined) return fail(`there is no ${check.scope} copy of ${check.buffer}`);
  for (const t of check.threads) {
    const loop = stage.loops.find((l) => l.threadTag === t.thread);
    if (loop === undefined) return fail(`no loop of the copy "${stage.block.name}" is bound to ${t.thread}`);
    if (constExtent(loop) !== size(t.extent)) return fail(`${describeLoop(loop)} should have extent ${size(t.extent)} (the number of threads along ${t.thread})`);
  }
  const twice = fetchedTwice(stage);
  return twice === undefined ? pass : fail(twice);
}

/**
 * Each element is fetched once per placement: the copy's loops below the outermost thread-bound
 * one map one-to-one onto the elements written. Checked by enumerating the (small) copy space.
 */
function fetchedTwice(stage: BlockSite): string | undefined {
  const first = stage.loops.findIndex((l) => l.threadTag?.startsWith("threadIdx") === true);
  const inner = stage.loops.slice(Math.max(0, first - 1));
  const extents = inner.map(constExtent);
  if (extents.some((e) => e === undefined)) return undefined;
  const total = product(extents as number[]);
  if (total > 1 << 16) return undefined;
  const seen = new Set<string>();
  const values = new Map<Var, PrimExpr>();
  const outer = stage.loops.filter((l) => !inner.includes(l));
  for (const l of outer) values.set(l.loopVar, intImm(0, l.loopVar.dtype));
  for (let n = 0; n < total; n++) {
    let rest = n;
    for (let k = inner.length - 1; k >= 0; k--) {
      const e = extents[k]!;
      values.set(inner[k]!.loopVar, intImm(rest % e, inner[k]!.loopVar.dtype));
      rest = Math.floor(rest / e);
    }
    const pred = simplify(substitute(stage.realize.predicate, values));
    if (pred.kind === "IntImm" && pred.value === 0) continue;
    const key = stage.realize.iterValues.map((b) => {
      const v = simplify(substitute(b, values));
      return v.kind === "IntImm" ? v.value : "?";
    }).join(",");
    if (seen.has(key)) return `the copy "${stage.block.name}" fetches element (${key}) more than once per thread block: fuse its loops, split by the number of threads and bind the parts`;
    seen.add(key);
  }
  return undefined;
}


