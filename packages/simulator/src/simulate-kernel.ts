/** Simulates one device kernel over its whole grid on the caller's arrays. */
import { type TypedArray, constantSize, dtypeInfo, typedArrayConstructorFor } from "@tessera/ir";
import { describeBufferType, makeRuntime } from "@tessera/ir/executor-kit";
import type { DeviceKernel } from "@tessera/codegen";
import { DeferredCopies } from "./async-copy-queue.js";
import { BankConflictRecorder } from "./bank-recorder.js";
import { kernelBankConflicts } from "./bank-report.js";
import { OutOfBoundsFault, runBlock } from "./block-runner.js";
import { type BlockSelection, selectedBlocks } from "./block-selection.js";
import { compileKernel } from "./compile-kernel.js";
import type { Dim3 } from "./dims.js";
import { SimulationError } from "./errors.js";
import { FindingCollector } from "./findings.js";
import { poisonedArray } from "./poison.js";
import type { KernelReport } from "./reports.js";
import { RaceShadow } from "./race-shadow.js";
import { ThreadClock } from "./thread-clock.js";
import { WarpMma } from "./mma/warp-mma.js";
import { WarpCollectives } from "./wmma/warp-collectives.js";
import { BlockMbarriers } from "./mbarrier-runtime.js";

export interface SimulationOptions {
  /**
   * Detect data races on shared memory and on the global buffers the kernel writes, and reads of
   * never-written shared memory (default true). See race-shadow.ts.
   */
  readonly detectRaces?: boolean;
  /** Races (and uninitialised reads) kept per kernel; all are counted (default 20). */
  readonly maxReports?: number;
  /**
   * Model shared-memory bank conflicts: pair the threads' shared accesses into warp-level accesses
   * and count their wavefronts (default false; it slows the simulation down).
   */
  readonly bankConflicts?: boolean;
  /**
   * Only these thread blocks of each kernel's grid, in this order (default: every block). Each
   * selected block runs completely, with the same checks as in a whole launch (out-of-bounds
   * accesses, barrier divergence, races and reads of never-written shared memory within the
   * block; races on global memory between the selected blocks, not with blocks left out). What the other blocks would have written stays as it was: results are valid for the
   * elements the selected blocks write, as long as no block reads what another block writes
   * (true of one kernel of a TensorIR function; in a module of several kernels, a later kernel
   * reads what the skipped blocks of an earlier one left unwritten). See block-selection.ts.
   */
  readonly blocks?: BlockSelection;
  /**
   * Called after each thread block finishes, before the next one starts, with the kernel and the
   * block's index: the caller can see what that block alone wrote (and undo it) between blocks.
   */
  readonly afterBlock?: (kernel: DeviceKernel, blockIdx: Dim3) => void;
}

/** A kernel argument: a typed array for a buffer parameter, a number for a scalar one. */
export type KernelArgument = TypedArray | number;

/**
 * Runs `kernel` on every block of its grid (or on the blocks `opts.blocks` selects). `args` follow `kernel.params`. Throws an
 * `OutOfBoundsError` or `BarrierDivergenceError` (both `SimulationError`s) when a thread fails.
 */
export function simulateKernel(kernel: DeviceKernel, args: readonly KernelArgument[], opts: SimulationOptions = {}): KernelReport {
  const started = performance.now();
  const detectRaces = opts.detectRaces ?? true;
  const values = checkArguments(kernel, args);
  const bankConflicts = opts.bankConflicts ?? false;
  const compiled = compileKernel(kernel, { detectRaces, bankConflicts });
  const { grid, block } = compiled.dims;
  const blocks = selectedBlocks(kernel, grid, opts.blocks);
  const clock = new ThreadClock();
  const findings = new FindingCollector(kernel.name, block, compiled.accessSites, opts.maxReports ?? 20, clock);
  const shadows = compiled.tracked.map((m) => new RaceShadow(m.buffer.name, m.scope, m.elements, clock, findings));
  const collectives = compiled.collectiveSites.length > 0 ? new WarpCollectives(kernel.name, block, compiled.collectiveSites) : undefined;
  const banks = bankConflicts ? new BankConflictRecorder(clock, compiled.bankSlots, compiled.bankSites.length) : undefined;
  const mma = compiled.mmaSites.length > 0 ? new WarpMma(kernel.name, block, compiled.mmaSites, banks) : undefined;
  const mbar = new BlockMbarriers(kernel.name, clock);
  if (mma !== undefined) mbar.onArrive = (thread) => mma.releaseRetired(thread);
  const sharedShadows = compiled.shared.map((a) => shadows[compiled.tracked.findIndex((m) => m.buffer.data === a.buffer.data)]);
  const runtime = {
    ...makeRuntime(compiled.errorSites),
    wmma: collectives,
    mma,
    mbar,
    outOfBounds(site: number, indices: readonly number[], shape: readonly number[]): never {
      throw new OutOfBoundsFault(site, indices, shape);
    },
    asyncCopies: () => new DeferredCopies(compiled.errorSites),
  };
  const run = { compiled, thread: compiled.instantiate(runtime, shadows, banks), args: values, clock, collectives, mma, mbar };
  let intervalsPerBlock = 0;
  for (const blockIdx of blocks) {
    const shared = compiled.shared.map((a) => poisonedArray(a.buffer.dtype, a.elements));
    mbar.startBlock(shared.map((array, k) => ({ array, name: compiled.shared[k]!.buffer.name, shadow: sharedShadows[k] })));
    intervalsPerBlock = runBlock(run, blockIdx, shared);
    mbar.endBlock();
    opts.afterBlock?.(kernel, blockIdx);
  }
  banks?.finish();
  const sharedBytes = compiled.shared.reduce((acc, a) => acc + a.elements * (dtypeInfo(a.buffer.dtype).bits / 8), 0);
  return {
    kernel: kernel.name,
    grid,
    block,
    blocksSimulated: blocks.length,
    intervalsPerBlock,
    sharedBytes,
    timeMs: performance.now() - started,
    races: findings.races,
    raceCount: findings.raceCount,
    raceCounts: { ...findings.raceCounts },
    uninitializedReads: findings.uninitializedReads,
    uninitializedReadCount: findings.uninitializedReadCount,
    ...(banks === undefined ? {} : { bankConflicts: kernelBankConflicts(kernel.name, compiled.bankSites, banks.totals) }),
  };
}

/** Checks each argument against its parameter (array type and size, or a number). */
function checkArguments(kernel: DeviceKernel, args: readonly KernelArgument[]): KernelArgument[] {
  if (!Array.isArray(args) || args.length !== kernel.params.length) {
    throw new SimulationError(
      `kernel ${kernel.name} takes ${kernel.params.length} arguments (${kernel.params.map((p) => p.name).join(", ")}), ` +
        `got ${Array.isArray(args) ? args.length : String(args)}`,
    );
  }
  return kernel.params.map((p, i) => {
    const value = args[i];
    const label = `kernel ${kernel.name}: argument ${i} (${p.name})`;
    if (p.kind === "scalar") {
      if (typeof value !== "number") throw new SimulationError(`${label}: expected a number (${p.dtype})`);
      return value;
    }
    const Ctor = typedArrayConstructorFor(p.buffer.dtype);
    if (!(value instanceof Ctor)) {
      throw new SimulationError(`${label}: expected a ${Ctor.name} for buffer ${describeBufferType(p.buffer)}`);
    }
    const elements = constantSize(p.buffer);
    if (elements === undefined) {
      throw new SimulationError(`${label}: buffer ${describeBufferType(p.buffer)} has a symbolic shape, which the simulator does not support`);
    }
    if (value.length < elements) {
      throw new SimulationError(`${label}: buffer ${describeBufferType(p.buffer)} needs ${elements} elements, the array has ${value.length}`);
    }
    return value;
  });
}
