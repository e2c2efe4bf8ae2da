/**
 * The d2l operators (`ops` of @tessera/ir) with the simplest GPU schedule, for cross-target tests
 * of GPU code generators (WGSL, Metal): every block's leading spatial loops fused, split by the
 * threads of a block and bound to blockIdx.x / threadIdx.x; reductions stay serial per thread.
 * Small shapes, each with a ragged last block, so that the generated guards are exercised.
 */
import { type PrimFunc, ops } from "@tessera/ir";
import { type LoopRV, Schedule } from "@tessera/schedule";

export interface GpuOperator {
  readonly name: string;
  readonly original: PrimFunc;
  readonly scheduled: PrimFunc;
}

/** Binds the fused leading spatial loops of every block of `func` to `threads` threads per block. */
export function bindSpatialLoops(func: PrimFunc, threads: number): PrimFunc {
  const sch = new Schedule(func);
  for (const block of sch.getChildBlocks(sch.getBlock("root"))) {
    const loops = sch.getLoops(block);
    const iters = sch.get(block).iterVars;
    let spatial = 0;
    while (spatial < iters.length && spatial < loops.length && iters[spatial]!.iterType === "spatial") spatial++;
    if (spatial === 0) throw new Error(`bindSpatialLoops: block ${sch.get(block).name} has no leading spatial loop to bind`);
    const fused: LoopRV = spatial > 1 ? sch.fuse(...loops.slice(0, spatial)) : loops[0]!;
    const [outer, inner] = sch.split(fused, [null, threads]);
    sch.bind(outer, "blockIdx.x");
    sch.bind(inner, "threadIdx.x");
  }
  return sch.func;
}

function gpu(name: string, original: PrimFunc, threads = 64): GpuOperator {
  return { name, original, scheduled: bindSpatialLoops(original, threads) };
}

/** The d2l operators at small sizes, each with its naive GPU schedule. */
export function d2lGpuOperators(): GpuOperator[] {
  const window = { batch: 1, height: 10, width: 10, kernel: 3, padding: 1 } as const;
  return [
    gpu("vector_add", ops.vectorAdd(1000).func),
    gpu("broadcast_add", ops.broadcastAdd([37, 1], [1, 50]).func),
    gpu("matmul", ops.matmul(40, 24, 36).func),
    gpu("batch_matmul", ops.batchMatmul(3, 16, 8, 12).func),
    gpu("conv2d", ops.conv2d({ ...window, inChannels: 4, outChannels: 6 }).func),
    gpu("depthwise_conv2d", ops.depthwiseConv2d({ ...window, channels: 5 }).func),
    gpu("max_pool2d", ops.maxPool2d({ ...window, channels: 3, stride: 2 }).func),
    gpu("avg_pool2d", ops.avgPool2d({ ...window, channels: 3 }).func),
    gpu("batch_norm", ops.batchNorm({ channels: 3, height: 9, width: 7 }).func),
    gpu("transpose", ops.transpose([5, 7, 9], [2, 0, 1]).func),
    gpu("reshape", ops.reshape([6, 10], [4, 15]).func),
    gpu("slice", ops.slice([20, 12], [2, 1], [18, 11], [3, 2]).func),
  ];
}
