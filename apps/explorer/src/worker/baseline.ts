/**
 * The unscheduled function made runnable on a GPU, the plainest way (as TVM's DefaultGPUSchedule):
 * each block's leading data-parallel loops fused and split onto blockIdx.x × threadIdx.x, one
 * thread per output element, so the student's kernel has something to be compared and timed against.
 * The split factor divides the fused extent: a predicated split would leave a reduction block
 * without compact dataflow, which `bind` refuses.
 */
import { type Block, type BlockRealize, type PrimFunc, forEachBlockRealize } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";

/** Threads per workgroup of the baseline: WebGPU's default maxComputeInvocationsPerWorkgroup. */
export const BASELINE_THREADS = 256;

function blocksOf(func: PrimFunc): BlockRealize[] {
  const blocks: BlockRealize[] = [];
  forEachBlockRealize(func.body, (r) => {
    if (r !== func.body) blocks.push(r);
  });
  return blocks;
}

/** The largest divisor of `extent` that is at most BASELINE_THREADS. */
function threadsFor(extent: number): number {
  for (let t = Math.min(extent, BASELINE_THREADS); t > 1; t--) if (extent % t === 0) return t;
  return 1;
}

/** How many of `loops`, from the outermost, only feed spatial iterators of `block`. */
function leadingSpatial(sch: Schedule, loops: ReturnType<Schedule["getLoops"]>, realize: BlockRealize): number {
  const spatialVars = new Set(
    realize.block.iterVars.flatMap((iv, k) => {
      const value = realize.iterValues[k];
      return iv.iterType === "spatial" && value?.kind === "Var" ? [value] : [];
    }),
  );
  let n = 0;
  while (n < loops.length && spatialVars.has(sch.get(loops[n]!).loopVar)) n++;
  return n;
}

function bindBlock(sch: Schedule, block: Block, realize: BlockRealize): void {
  const loops = sch.getLoops(sch.getBlock(block.name));
  const spatial = leadingSpatial(sch, loops, realize);
  if (spatial === 0) throw new Error(`the baseline cannot bind block ${block.name}: it has no outer data-parallel loop`);
  const fused = spatial > 1 ? sch.fuse(...loops.slice(0, spatial)) : loops[0]!;
  const extent = sch.get(fused).extent;
  if (extent.kind !== "IntImm") throw new Error(`the baseline cannot bind block ${block.name}: its loops have symbolic extents`);
  const [outer, inner] = sch.split(fused, [null, threadsFor(extent.value)]);
  sch.bind(outer!, "blockIdx.x");
  sch.bind(inner!, "threadIdx.x");
}

/** `func` (unscheduled) with every block bound one thread per element. */
export function bindUnscheduled(func: PrimFunc): PrimFunc {
  const sch = new Schedule(func);
  for (const realize of blocksOf(func)) bindBlock(sch, realize.block, realize);
  return sch.func;
}
