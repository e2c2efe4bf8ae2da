/**
 * A course-style design space of `D = ReLU(A·B) + C` for the cost-model tests: i and j split into
 * (block, thread, register) tiles and k into (chunk, step) by samplePerfectTile, blockIdx and
 * threadIdx bindings, A and B staged in shared memory per k chunk (fetched by all threads) and in
 * registers per k step, the accumulators in registers with the epilogue fused into their
 * write-back. Each sample reports its tile sizes, from which `syntheticLatency` computes a
 * roofline-style run time.
 */
import { gemmReluAdd } from "@tessera/ir";
import { type ExprRV, type LoopRV, Schedule } from "@tessera/schedule";

export interface GemmTiles {
  readonly threadsI: number;
  readonly threadsJ: number;
  readonly regI: number;
  readonly regJ: number;
  /** k elements per shared-memory chunk. */
  readonly kChunk: number;
}

export interface GemmSample {
  readonly sch: Schedule;
  readonly tiles: GemmTiles;
}

export function sampleGemmSchedule(n: number, seed: number): GemmSample {
  const sch = new Schedule(gemmReluAdd(n).func, { seed });
  const gemm = sch.getBlock("gemm");
  const [i, j, k] = sch.getLoops(gemm) as [LoopRV, LoopRV, LoopRV];
  const fi = sch.samplePerfectTile(i, 3, 8);
  const fj = sch.samplePerfectTile(j, 3, 8);
  const fk = sch.samplePerfectTile(k, 2, 32);
  const [bi, ti, ri] = sch.split(i, fi);
  const [bj, tj, rj] = sch.split(j, fj);
  const [ko, ki] = sch.split(k, fk);
  sch.reorder(bi!, bj!, ti!, tj!, ko!, ki!, ri!, rj!);
  sch.bind(bi, "blockIdx.x");
  sch.bind(bj, "blockIdx.y");
  sch.bind(ti, "threadIdx.x");
  sch.bind(tj, "threadIdx.y");
  for (const operand of [0, 1]) {
    const shared = sch.cacheRead(gemm, operand, "shared");
    sch.computeAt(shared, ko, true);
    const copy = sch.getLoops(shared).slice(5);
    const fused = copy.length === 1 ? copy[0]! : sch.fuse(...copy);
    const [, cx, cy] = sch.split(fused, [null, fi[1] as ExprRV, fj[1] as ExprRV]);
    sch.bind(cx, "threadIdx.x");
    sch.bind(cy, "threadIdx.y");
    const local = sch.cacheRead(gemm, operand, "local");
    sch.computeAt(local, ki, true);
  }
  const acc = sch.cacheWrite(gemm, 0, "local");
  sch.reverseComputeAt(acc, tj, true);
  sch.reverseComputeInline(sch.getBlock("relu"));
  sch.reverseComputeInline(sch.getBlock("add"));
  const value = (rv: ExprRV | undefined) => sch.get(rv) as number;
  return {
    sch,
    tiles: { threadsI: value(fi[1]), threadsJ: value(fj[1]), regI: value(fi[2]), regJ: value(fj[2]), kChunk: value(fk[1]) },
  };
}

/**
 * A roofline-style run time (seconds) of a 2048³-like gemm with these tiles on an H100-like GPU:
 * the slowest of FMA issue (starved by small register tiles or few threads), shared-memory
 * traffic (one load per register-tile edge element) and L2 traffic (one load per block-tile edge
 * element), stretched by the partial last wave of thread blocks; undefined when the block needs
 * more than 1024 threads or 48 KB of shared memory. Deterministic, and computed from the tiles
 * only — never from the features.
 */
export function syntheticLatency(n: number, t: GemmTiles): number | undefined {
  const threads = t.threadsI * t.threadsJ;
  const blockI = t.threadsI * t.regI;
  const blockJ = t.threadsJ * t.regJ;
  const sharedBytes = (blockI + blockJ) * t.kChunk * 4;
  if (threads > 1024 || sharedBytes > 48 * 1024) return undefined;
  const fmas = n * n * n;
  const registerReuse = Math.min(1, (t.regI * t.regJ) / 32);
  const occupancy = Math.min(1, threads / 128);
  const compute = fmas / (25e12 * registerReuse * occupancy);
  const shared = (fmas * (1 / t.regI + 1 / t.regJ) * 4) / 30e12;
  const l2 = (fmas * (1 / blockI + 1 / blockJ) * 4) / 4e12;
  const chunkOverhead = 1 + 8 / t.kChunk / 8;
  const blocks = (n / blockI) * (n / blockJ);
  const waves = Math.ceil(blocks / 132);
  const utilisation = blocks / (waves * 132);
  return (Math.max(compute, shared, l2) * chunkOverhead) / utilisation + 5e-6;
}
