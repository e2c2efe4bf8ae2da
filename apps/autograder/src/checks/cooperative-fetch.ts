/**
 * A cooperative-fetch check: the block's threads share the copy of a chunk into shared memory.
 * Loops of the copy are bound to the threads, each thread copies its share of the chunk (chunk ÷
 * threads elements, not the whole chunk, e.g. because the copy sits inside the compute's thread
 * loops), and no element is fetched twice.
 */
import { type For, type PrimExpr, type Var, evalIntExpr, intImm, simplify, substitute } from "@tessera/ir";
import { type Check, resolveSize } from "../manifest/index.js";
import { axisLoops, isThreadIdx, listLoops, product } from "./loop-roles.js";
import { type CheckContext, type CheckOutcome, fail, pass } from "./outcome.js";
import { type BlockSite, type ProgramView, constExtent, describeLoop, site } from "./program-view.js";
import { ownLoops } from "./stages.js";

type CooperativeFetchCheck = Extract<Check, { kind: "cooperative-fetch" }>;

export function cooperativeFetchCheck(check: CooperativeFetchCheck, ctx: CheckContext): CheckOutcome {
  const stage = copyOf(ctx.view, check.buffer, check.scope);
  if (stage === undefined) return fail(`there is no ${check.scope} copy of ${check.buffer}`);
  const consumer = site(ctx.view, check.of);
  const chunkLoops = copyLoops(stage, consumer);
  for (const t of check.threads) {
    // Only the copy's loops of one chunk: a block loop bound to a thread by mistake is task 1's.
    const loop = chunkLoops.find((l) => l.threadTag === t.thread);
    if (loop === undefined) return fail(`no loop of the copy "${stage.block.name}" is bound to ${t.thread}`);
    const want = resolveSize(t.extent, ctx.tiles);
    if (constExtent(loop) !== want) return fail(`${describeLoop(loop)} should have extent ${want} (the number of threads along ${t.thread})`);
  }
  const share = unshared(stage, consumer, chunkLoops);
  if (share !== undefined) return fail(share);
  const twice = fetchedTwice(stage);
  return twice === undefined ? pass : fail(twice);
}

/**
 * The loops of the copy that run for one chunk: those inside the consumer's k-chunk loop or, when
 * the copy is not under it (a task-1 placement mistake, named there), its own loops.
 */
function copyLoops(stage: BlockSite, consumer: BlockSite | undefined): readonly For[] {
  const chunkLoop = consumer === undefined ? undefined : axisLoops(consumer, "k")[0];
  if (chunkLoop !== undefined && stage.loops.includes(chunkLoop)) return stage.loops.slice(stage.loops.indexOf(chunkLoop) + 1);
  return consumer === undefined ? stage.loops : ownLoops(stage, consumer);
}

/**
 * How many elements one placement of the copy writes: its own loops' iterations where its
 * predicate holds (a split that over-covers the fused loop is guarded), counted when small enough.
 */
function elementsPerPlacement(stage: BlockSite, own: readonly For[]): number {
  const extents = own.map((l) => constExtent(l) ?? 1);
  const total = product(extents);
  if (total > 1 << 16) return total;
  const at = new LoopValues(stage.loops);
  let count = 0;
  for (let n = 0; n < total; n++) {
    let rest = n;
    for (let k = own.length - 1; k >= 0; k--) {
      at.set(own[k]!.loopVar, rest % extents[k]!);
      rest = Math.floor(rest / extents[k]!);
    }
    if (at.value(stage.realize.predicate) !== 0) count++;
  }
  return count;
}

function copyOf(view: ProgramView, buffer: string, scope: string): BlockSite | undefined {
  return [...view.blocks.values()].flat().find((s) => {
    const body = s.block.body;
    const src = body.kind === "BufferStore" && body.value.kind === "BufferLoad" ? body.value.buffer.name : undefined;
    return src === buffer && s.block.writes.some((w) => w.buffer.scope === scope);
  });
}

/**
 * Why a thread copies more than its share of one chunk, or undefined. A thread runs every loop
 * inside the k-chunk loop except the one loop per threadIdx tag that stands for it: a second loop
 * bound to the same tag (the copy's own, inside the compute's thread loops) repeats for each thread.
 */
function unshared(stage: BlockSite, compute: BlockSite | undefined, inside: readonly For[]): string | undefined {
  const extents = inside.map(constExtent);
  if (extents.some((e) => e === undefined)) return undefined;
  // The threads that share the copy: per threadIdx tag around it, the outermost loop with that tag.
  const standsForThread: For[] = [];
  for (const l of inside.filter(isThreadIdx)) if (!standsForThread.some((s) => s.threadTag === l.threadTag)) standsForThread.push(l);
  const threads = product(standsForThread.map((l) => constExtent(l)!));
  const perThread = product(inside.filter((l) => !standsForThread.includes(l)).map((l) => constExtent(l)!));
  const chunk = elementsPerPlacement(stage, compute === undefined ? stage.loops : ownLoops(stage, compute));
  const share = Math.ceil(chunk / threads);
  if (perThread <= share) return undefined;
  const whole = perThread >= chunk ? ` — the whole ${chunk}-element chunk` : "";
  const nested = compute === undefined ? [] : stage.loops.filter((l) => isThreadIdx(l) && compute.loops.includes(l));
  const cause =
    nested.length > 0
      ? `the copy sits inside the compute's thread loops ${listLoops(nested)}, so every thread runs all of it: keep it directly under the k-chunk loop, where task 1's computeAt put it`
      : "fuse the copy's loops, split the fused loop by the number of threads and bind the parts to threadIdx.x and threadIdx.y";
  return `each thread copies ${perThread} elements of "${stage.block.name}" per k chunk${whole}; its share is ${chunk} ÷ ${threads} threads = ${share}: ${cause}`;
}

/**
 * Each element is fetched once per placement: the copy's loops below the outermost thread-bound
 * one map one-to-one onto the elements written. Checked by enumerating the (small) copy space.
 */
function fetchedTwice(stage: BlockSite): string | undefined {
  const first = stage.loops.findIndex(isThreadIdx);
  const inner = stage.loops.slice(Math.max(0, first - 1));
  const extents = inner.map(constExtent);
  if (extents.some((e) => e === undefined)) return undefined;
  const total = product(extents as number[]);
  if (total > 1 << 16) return undefined;
  const seen = new Set<string>();
  const at = new LoopValues(stage.loops);
  for (let n = 0; n < total; n++) {
    let rest = n;
    for (let k = inner.length - 1; k >= 0; k--) {
      const e = extents[k]!;
      at.set(inner[k]!.loopVar, rest % e);
      rest = Math.floor(rest / e);
    }
    if (at.value(stage.realize.predicate) === 0) continue;
    const key = stage.realize.iterValues.map((b) => at.value(b) ?? "?").join(",");
    if (seen.has(key))
      return `the copy "${stage.block.name}" fetches element (${key}) more than once per thread block: fuse its loops, split by the number of threads and bind the parts`;
    seen.add(key);
  }
  return undefined;
}

/**
 * Values of a copy's loop variables (0 until set), and the value of an expression there: computed
 * directly where it is plain integer arithmetic, else by substituting and simplifying the IR.
 */
class LoopValues {
  readonly #numbers = new Map<Var, number>();

  constructor(loops: readonly For[]) {
    for (const l of loops) this.#numbers.set(l.loopVar, 0);
  }

  set(v: Var, value: number): void {
    this.#numbers.set(v, value);
  }

  /** The integer value of `e`, or undefined when it does not simplify to one. */
  value(e: PrimExpr): number | undefined {
    const direct = evalIntExpr(e, this.#numbers);
    if (direct !== undefined) return direct;
    const symbolic = new Map<Var, PrimExpr>([...this.#numbers].map(([v, n]) => [v, intImm(n, v.dtype)]));
    const folded = simplify(substitute(e, symbolic));
    return folded.kind === "IntImm" ? folded.value : undefined;
  }
}
