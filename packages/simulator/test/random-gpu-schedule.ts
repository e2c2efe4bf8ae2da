/**
 * Random *valid GPU* schedules for the simulator's property test: a recipe (plain data, so that
 * fast-check can shrink and print it) and the function that applies it with the schedule API.
 *
 * A recipe always binds the outermost loops of every stage that is left as its own loop nest to
 * blockIdx and the next ones to threadIdx, so that nothing runs on the host; the remaining freedom
 * (tile sizes that need not divide, virtual threads between the block and thread loops — outside
 * the k-chunk loop and the shared-memory fetches, as MetaSchedule's GPU tiling puts them —, loop
 * orders, shared-memory stages fetched cooperatively, a local write cache, inlining and attaching
 * of elementwise stages, unroll and vectorize, and MetaSchedule's unroll pragmas with a
 * launch-bounds request) is drawn.
 */
import { type PrimFunc, add, compute, createPrimFunc, gemmReluAdd, matmul, mul, placeholder, sub, vectorAdd } from "@tessera/ir";
import { type BlockRV, type LoopRV, Schedule } from "@tessera/schedule";
import fc from "fast-check";

// ---------------------------------------------------------------- workloads

export type Workload =
  | { readonly kind: "matmul"; readonly n: number; readonly m: number; readonly l: number }
  | { readonly kind: "gemmReluAdd"; readonly n: number }
  | { readonly kind: "vectorAdd"; readonly n: number }
  | { readonly kind: "chain"; readonly n: number };

/** `Z[i] = Y[i] * A[i] - A[i]` with `Y[i] = A[i] * 2 + 1`: two elementwise stages on one input. */
function elementwiseChain(n: number): PrimFunc {
  const A = placeholder([n], "float32", "A");
  const Y = compute([n], (i) => add(mul(A.at(i), 2), 1), "Y");
  const Z = compute([n], (i) => sub(mul(Y.at(i), A.at(i)), A.at(i)), "Z");
  return createPrimFunc([A, Z], { name: "chain" });
}

export function workloadFunc(w: Workload): PrimFunc {
  switch (w.kind) {
    case "matmul":
      return matmul(w.n, w.m, w.l).func;
    case "gemmReluAdd":
      return gemmReluAdd(w.n).func;
    case "vectorAdd":
      return vectorAdd(w.n).func;
    case "chain":
      return elementwiseChain(w.n);
  }
}

// ---------------------------------------------------------------- recipes

/** Threads per spatial axis; 3, 5, 7 rarely divide an extent, so they produce T.where predicates. */
const THREADS = [1, 2, 3, 4, 5, 7, 8, 16, 32] as const;

export interface AxisTiling {
  /** Extent of a loop bound to vthread between the block and thread loops (1: none). */
  readonly vthreads: number;
  /** Extent of the loop bound to threadIdx. */
  readonly threads: number;
  /** Extent of a serial loop inside it (0: none). */
  readonly inner: number;
}

/** How the elementwise stages after (or before) the main stage are scheduled. */
export type Epilogue =
  | "separate" // every stage its own kernel
  | "inlineProducer" // computeInline of the first elementwise stage into the next one
  | "attach" // reverseComputeAt of the next stage under the main stage's innermost thread loop
  | "inlineIntoWriteBack"; // (with a write cache) reverseComputeInline of the stages into the write-back

export interface GpuRecipe {
  readonly workload: Workload;
  /** Tiling of the main stage's spatial loops (one entry per loop). */
  readonly axes: readonly AxisTiling[];
  /** Bind the first spatial axis to y instead of x (blocks and threads independently). */
  readonly swapBlockAxes: boolean;
  readonly swapThreadAxes: boolean;
  /** Split factor of the reduction loop (0: not split). */
  readonly kFactor: number;
  /** Which read buffers of the main stage go to shared memory (bit k: read k). */
  readonly sharedReads: number;
  /** Attach the shared stages at the k-chunk loop (else at the innermost block loop). */
  readonly sharedAtChunk: boolean;
  /** Vector width of the cooperative fetch's innermost loop (1: no vectorize). */
  readonly fetchVector: 1 | 2 | 4;
  readonly writeCache: boolean;
  readonly epilogue: Epilogue;
  /** Threads per block of stages scheduled on their own. */
  readonly elementwiseThreads: number;
  /** Seed of the permutation of the serial loops under the thread loops. */
  readonly innerOrder: number;
  readonly unrollInner: boolean;
  readonly vectorizeInner: boolean;
  /**
   * MetaSchedule's unroll pragmas (and a launch-bounds request of one block per SM) on the main
   * stage's outermost loop; max step 0: none.
   */
  readonly unrollPragma: { readonly maxStep: number; readonly explicit: boolean };
}

const workloadArb: fc.Arbitrary<Workload> = fc.oneof(
  fc.record({
    kind: fc.constant("matmul" as const),
    n: fc.integer({ min: 16, max: 64 }),
    m: fc.integer({ min: 16, max: 64 }),
    l: fc.integer({ min: 16, max: 64 }),
  }),
  fc.record({ kind: fc.constant("gemmReluAdd" as const), n: fc.constantFrom(32, 64) }),
  fc.record({ kind: fc.constant("vectorAdd" as const), n: fc.constantFrom(97, 255, 333, 1001) }),
  fc.record({ kind: fc.constant("chain" as const), n: fc.constantFrom(63, 129, 301) }),
);

const axisArb: fc.Arbitrary<AxisTiling> = fc.record({
  vthreads: fc.constantFrom(1, 1, 1, 2, 3),
  threads: fc.constantFrom(...THREADS),
  inner: fc.constantFrom(0, 0, 1, 2, 3, 4),
});

export const gpuRecipeArb: fc.Arbitrary<GpuRecipe> = fc.record({
  workload: workloadArb,
  axes: fc.array(axisArb, { minLength: 2, maxLength: 2 }),
  swapBlockAxes: fc.boolean(),
  swapThreadAxes: fc.boolean(),
  kFactor: fc.constantFrom(0, 4, 5, 8, 16),
  sharedReads: fc.nat(3),
  sharedAtChunk: fc.boolean(),
  fetchVector: fc.constantFrom(1 as const, 2 as const, 4 as const),
  writeCache: fc.boolean(),
  epilogue: fc.constantFrom("separate" as const, "inlineProducer" as const, "attach" as const, "inlineIntoWriteBack" as const),
  elementwiseThreads: fc.constantFrom(32, 64, 100, 128, 256),
  innerOrder: fc.nat(719),
  unrollInner: fc.boolean(),
  vectorizeInner: fc.boolean(),
  unrollPragma: fc.record({ maxStep: fc.constantFrom(0, 0, 16, 64, 512), explicit: fc.boolean() }),
});

// ---------------------------------------------------------------- applying a recipe

const BLOCK_AXES = ["blockIdx.x", "blockIdx.y"] as const;
const THREAD_AXES = ["threadIdx.x", "threadIdx.y"] as const;
const VTHREAD_AXES = ["vthread.x", "vthread.y"] as const;

/** The k-th permutation (Lehmer code, k taken modulo n!) of `xs`. */
function permutation<T>(xs: readonly T[], k: number): T[] {
  const pool = [...xs];
  const out: T[] = [];
  for (let n = pool.length; n > 0; n--) {
    const i = k % n;
    k = Math.floor(k / n);
    out.push(pool.splice(i, 1)[0]!);
  }
  return out;
}

/** Where the main stage's loops ended up, for the stages attached to them. */
interface MainNest {
  readonly block: BlockRV;
  /** The outermost loop (bound to a block index). */
  readonly outermost: LoopRV;
  /** Where shared stages attach: the chunk loop, else the innermost block or virtual thread loop. */
  readonly attachLoop: LoopRV;
  /** Loops of the nest down to the attach point of shared stages. */
  readonly attachDepth: number;
  readonly innermostThreadLoop: LoopRV;
  readonly threadsX: number;
  readonly threadsY: number;
  /** The serial loops under the thread loops, outermost first. */
  readonly serial: readonly LoopRV[];
}

interface AxisLoops {
  readonly outer: LoopRV;
  readonly vthread: LoopRV | undefined;
  readonly thread: LoopRV;
  readonly inner: LoopRV | undefined;
}

/** Splits one spatial loop into `[blocks, (vthreads,) threads (, inner)]`. */
function tileAxis(sch: Schedule, loop: LoopRV, t: AxisTiling): AxisLoops {
  const virtual = t.vthreads > 1;
  const factors = [null, ...(virtual ? [t.vthreads] : []), t.threads, ...(t.inner === 0 ? [] : [t.inner])];
  const [outer, ...rest] = sch.split(loop, factors) as [LoopRV, ...LoopRV[]];
  const vthread = virtual ? rest.shift() : undefined;
  const [thread, inner] = rest as [LoopRV, LoopRV | undefined];
  return { outer, vthread, thread, inner };
}

/** Tiles and binds a stage with one or two spatial loops and at most one reduction loop. */
function scheduleMainStage(sch: Schedule, block: BlockRV, r: GpuRecipe, reduction: boolean): MainNest {
  const loops = sch.getLoops(block);
  const spatial = reduction ? loops.slice(0, -1) : loops;
  const tiles = spatial.map((l, k) => tileAxis(sch, l, r.axes[k] ?? { vthreads: 1, threads: 32, inner: 0 }));
  let chunk: LoopRV | undefined;
  const serial: LoopRV[] = tiles.flatMap((t) => (t.inner === undefined ? [] : [t.inner]));
  if (reduction) {
    const k = loops[loops.length - 1]!;
    if (r.kFactor > 0) {
      const [ko, ki] = sch.split(k, [null, r.kFactor]);
      chunk = ko;
      serial.push(ki);
    } else {
      serial.push(k);
    }
  }
  const blockLoops = tiles.map((t) => t.outer);
  const vthreadAxes = tiles.flatMap((t, k) => (t.vthread === undefined ? [] : [{ loop: t.vthread, axis: VTHREAD_AXES[k]! }]));
  const vthreadLoops = vthreadAxes.map((v) => v.loop);
  const threadLoops = tiles.map((t) => t.thread);
  const shuffled = permutation(serial, r.innerOrder);
  // A shared stage attached at the chunk loop is fetched by the block's threads once per chunk,
  // so the chunk loop must be outside the thread loops; otherwise it is an ordinary serial loop.
  const chunkOutside = chunk !== undefined && r.sharedAtChunk && r.sharedReads !== 0;
  const outerLoops = [...blockLoops, ...vthreadLoops];
  const order = chunkOutside
    ? [...outerLoops, chunk!, ...threadLoops, ...shuffled]
    : [...outerLoops, ...threadLoops, ...(chunk === undefined ? [] : [chunk]), ...shuffled];
  if (order.length > 1) sch.reorder(...order);
  const swapB = r.swapBlockAxes && blockLoops.length === 2;
  const swapT = r.swapThreadAxes && threadLoops.length === 2;
  blockLoops.forEach((l, k) => sch.bind(l, BLOCK_AXES[swapB ? 1 - k : k]!));
  vthreadAxes.forEach((v) => sch.bind(v.loop, v.axis));
  threadLoops.forEach((l, k) => sch.bind(l, THREAD_AXES[swapT ? 1 - k : k]!));
  const threadsOf = (axis: number): number => {
    const k = threadLoops.findIndex((_, i) => (swapT ? 1 - i : i) === axis);
    return k < 0 ? 1 : (r.axes[k]?.threads ?? 32);
  };
  return {
    block,
    outermost: blockLoops[0]!,
    attachLoop: chunkOutside ? chunk! : outerLoops[outerLoops.length - 1]!,
    attachDepth: outerLoops.length + (chunkOutside ? 1 : 0),
    innermostThreadLoop: threadLoops[threadLoops.length - 1]!,
    threadsX: threadsOf(0),
    threadsY: threadsOf(1),
    serial: chunkOutside ? shuffled : [...(chunk === undefined ? [] : [chunk]), ...shuffled],
  };
}

/** A shared copy of read `index` of the main stage, attached in the block and fetched by all its threads. */
function cooperativeSharedRead(sch: Schedule, nest: MainNest, index: number, r: GpuRecipe): void {
  const stage = sch.cacheRead(nest.block, index, "shared");
  sch.computeAt(stage, nest.attachLoop);
  const copy = sch.getLoops(stage).slice(nest.attachDepth);
  const fused = copy.length > 1 ? sch.fuse(...copy) : copy[0];
  if (fused === undefined) return;
  const factors = r.fetchVector > 1 ? [null, nest.threadsY, nest.threadsX, r.fetchVector] : [null, nest.threadsY, nest.threadsX];
  const parts = sch.split(fused, factors);
  sch.bind(parts[1]!, "threadIdx.y");
  sch.bind(parts[2]!, "threadIdx.x");
  if (r.fetchVector > 1) sch.vectorize(parts[3]!);
}

/** A stage with its own kernel: all loops fused, split over `threads` per block. */
function elementwiseKernel(sch: Schedule, block: BlockRV, threads: number, vectorize: boolean): void {
  const loops = sch.getLoops(block);
  const fused = loops.length > 1 ? sch.fuse(...loops) : loops[0]!;
  if (vectorize) {
    const [bx, tx, v] = sch.split(fused, [null, threads, 2]);
    sch.bind(bx, "blockIdx.x");
    sch.bind(tx, "threadIdx.x");
    sch.vectorize(v);
  } else {
    const [bx, tx] = sch.split(fused, [null, threads]);
    sch.bind(bx, "blockIdx.x");
    sch.bind(tx, "threadIdx.x");
  }
}

/** Unroll / vectorize the innermost serial loop of the main stage, if any. */
function innermostLoopKinds(sch: Schedule, nest: MainNest, r: GpuRecipe): void {
  const innermost = nest.serial[nest.serial.length - 1];
  if (innermost === undefined) return;
  if (r.vectorizeInner) sch.vectorize(innermost);
  else if (r.unrollInner) sch.unroll(innermost);
}

/** The unroll pragmas and launch bounds of the recipe, on the outermost loop of the main stage. */
function annotateMainStage(sch: Schedule, nest: MainNest, r: GpuRecipe): void {
  if (r.unrollPragma.maxStep === 0) return;
  sch.annotate(nest.outermost, "pragma_auto_unroll_max_step", r.unrollPragma.maxStep);
  sch.annotate(nest.outermost, "pragma_unroll_explicit", r.unrollPragma.explicit ? 1 : 0);
  sch.annotate(nest.outermost, "launch_bounds_min_blocks_per_sm", 1);
}

function scheduleGemmLike(sch: Schedule, r: GpuRecipe, main: string, elementwise: readonly string[]): void {
  const block = sch.getBlock(main);
  const nest = scheduleMainStage(sch, block, r, true);
  annotateMainStage(sch, nest, r);
  for (const index of [0, 1]) if ((r.sharedReads >> index) & 1) cooperativeSharedRead(sch, nest, index, r);
  let writeBack: BlockRV | undefined;
  if (r.writeCache) {
    writeBack = sch.cacheWrite(block, 0, "local");
    sch.reverseComputeAt(writeBack, nest.innermostThreadLoop);
  }
  innermostLoopKinds(sch, nest, r);
  const stages = elementwise.map((name) => sch.getBlock(name));
  if (stages.length === 0) return;
  const [first, second] = stages as [BlockRV, BlockRV];
  switch (r.epilogue) {
    case "inlineIntoWriteBack":
      if (writeBack !== undefined) {
        sch.reverseComputeInline(second);
        sch.reverseComputeInline(first);
        return;
      }
      break;
    case "attach":
      sch.reverseComputeAt(first, nest.innermostThreadLoop);
      sch.reverseComputeInline(second);
      return;
    case "inlineProducer":
      sch.computeInline(first);
      elementwiseKernel(sch, second, r.elementwiseThreads, r.vectorizeInner);
      return;
    case "separate":
      break;
  }
  for (const s of stages) elementwiseKernel(sch, s, r.elementwiseThreads, r.vectorizeInner);
}

function scheduleChain(sch: Schedule, r: GpuRecipe, stages: readonly string[]): void {
  const oneAxis = { ...r, axes: r.axes.slice(0, 1) };
  let main = sch.getBlock(stages[stages.length - 1]!);
  const producer = stages.length > 1 ? sch.getBlock(stages[0]!) : undefined;
  if (producer !== undefined && r.epilogue === "inlineProducer") sch.computeInline(producer);
  if (producer !== undefined && r.epilogue === "inlineIntoWriteBack") {
    sch.reverseComputeInline(main);
    main = producer;
  }
  const nest = scheduleMainStage(sch, main, oneAxis, false);
  annotateMainStage(sch, nest, r);
  if (r.sharedReads & 1) cooperativeSharedRead(sch, nest, 0, oneAxis);
  innermostLoopKinds(sch, nest, r);
  if (producer === undefined) return;
  if (r.epilogue === "attach") sch.computeAt(producer, nest.innermostThreadLoop);
  else if (r.epilogue === "separate") elementwiseKernel(sch, producer, r.elementwiseThreads, false);
}

/** Applies a recipe to a fresh schedule of its workload; primitives may throw ScheduleError. */
export function applyGpuRecipe(r: GpuRecipe): Schedule {
  const sch = new Schedule(workloadFunc(r.workload));
  switch (r.workload.kind) {
    case "matmul":
      scheduleGemmLike(sch, r, "C", []);
      break;
    case "gemmReluAdd":
      scheduleGemmLike(sch, r, "gemm", ["relu", "add"]);
      break;
    case "vectorAdd":
      scheduleChain(sch, r, ["C"]);
      break;
    case "chain":
      scheduleChain(sch, r, ["Y", "Z"]);
      break;
  }
  return sch;
}
