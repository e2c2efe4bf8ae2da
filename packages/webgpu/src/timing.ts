/**
 * Timing of recorded dispatches: with timestamp queries (GPU time of the compute passes) where
 * the device has the `timestamp-query` feature, else wall time around submit and
 * `onSubmittedWorkDone()` (CPU time, which includes submission overhead). The result says which.
 */
import { BufferUsage, MapMode } from "./usage.js";

export interface TimingOptions {
  /** Untimed runs first (default 1). */
  readonly warmup?: number;
  /** Timed runs (default 10). */
  readonly repeat?: number;
  /**
   * Keep running untimed for at least this long (default 0): a GPU idle before the call runs its
   * first milliseconds at low clocks, and one timed dispatch at a time does not wake it.
   */
  readonly warmupMs?: number;
}

export interface TimingResult {
  readonly method: "timestamp-query" | "cpu";
  /** Per run, milliseconds. */
  readonly runsMs: readonly number[];
  readonly medianMs: number;
  readonly meanMs: number;
}

type Encode = (encoder: GPUCommandEncoder, stamps?: (pass: number) => GPUComputePassTimestampWrites | undefined) => void;

/** Dispatches submitted between waits while warming up for `warmupMs`. */
const WARMUP_BATCH = 10;

export async function timeDispatches(device: GPUDevice, encode: Encode, passes: number, opts: TimingOptions = {}): Promise<TimingResult> {
  const warmup = opts.warmup ?? 1;
  const repeat = Math.max(1, opts.repeat ?? 10);
  for (let i = 0; i < warmup; i++) {
    const encoder = device.createCommandEncoder();
    encode(encoder);
    device.queue.submit([encoder.finish()]);
  }
  await device.queue.onSubmittedWorkDone();
  const warmUntil = performance.now() + (opts.warmupMs ?? 0);
  while (performance.now() < warmUntil) {
    for (let i = 0; i < WARMUP_BATCH; i++) {
      const encoder = device.createCommandEncoder();
      encode(encoder);
      device.queue.submit([encoder.finish()]);
    }
    await device.queue.onSubmittedWorkDone();
  }
  const useQueries = device.features.has("timestamp-query");
  const runsMs: number[] = [];
  for (let r = 0; r < repeat; r++) runsMs.push(useQueries ? await timedWithQueries(device, encode, passes) : await timedOnCpu(device, encode));
  const sorted = [...runsMs].sort((a, b) => a - b);
  const median = sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  return { method: useQueries ? "timestamp-query" : "cpu", runsMs, medianMs: median, meanMs: runsMs.reduce((a, b) => a + b, 0) / runsMs.length };
}

async function timedOnCpu(device: GPUDevice, encode: Encode): Promise<number> {
  const encoder = device.createCommandEncoder();
  encode(encoder);
  const commands = encoder.finish();
  const start = performance.now();
  device.queue.submit([commands]);
  await device.queue.onSubmittedWorkDone();
  return performance.now() - start;
}

/** The GPU time from the first pass's start to the last pass's end. */
async function timedWithQueries(device: GPUDevice, encode: Encode, passes: number): Promise<number> {
  const count = 2 * passes;
  const querySet = device.createQuerySet({ type: "timestamp", count });
  const resolve = device.createBuffer({ size: 8 * count, usage: BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC });
  const read = device.createBuffer({ size: 8 * count, usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder();
  encode(encoder, (i) => ({ querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 }));
  encoder.resolveQuerySet(querySet, 0, count, resolve, 0);
  encoder.copyBufferToBuffer(resolve, 0, read, 0, 8 * count);
  device.queue.submit([encoder.finish()]);
  await read.mapAsync(MapMode.READ);
  const stamps = new BigUint64Array(read.getMappedRange().slice(0));
  read.unmap();
  read.destroy();
  resolve.destroy();
  querySet.destroy();
  return Number(stamps[count - 1]! - stamps[0]!) / 1e6;
}
