/**
 * Store coverage: which elements of one buffer a kernel writes, over its whole grid, and which it
 * writes from more than one thread. Only the slice of the kernel that places the buffer's stores
 * runs (store-slice.ts: loops, guards and index arithmetic; no values, no shared memory, no
 * barriers), once for every thread of every block, so a full-size launch is checked exactly for a
 * small fraction of a simulation's cost. A kernel whose stores the slice cannot place (indices
 * that depend on loaded values, a pointer handed to an intrinsic) is reported as unsupported with
 * the reason, never as covered.
 */
import { EmitContext, type ExecRuntime, assembleSource, declareBufferLayout, emitStmt, makeRuntime } from "@tessera/ir/executor-kit";
import { constantSize, typedArrayConstructorFor, usesVar } from "@tessera/ir";
import type { DeviceKernel, LoweredModule } from "@tessera/codegen";
import type { Dim3 } from "./dims.js";
import { SimulationError } from "./errors.js";
import { type ThreadTag, launchDims } from "./launch.js";
import { sliceStores } from "./store-slice.js";

/** One thread of a launch. */
export interface ThreadIndex {
  readonly block: Dim3;
  readonly thread: Dim3;
}

/** Two threads that store the same element. */
export interface StoreOverlap {
  /** Flat index of the element. */
  readonly element: number;
  readonly first: ThreadIndex;
  readonly second: ThreadIndex;
}

export interface StoreCoverage {
  readonly buffer: string;
  /** Elements of the buffer. */
  readonly elements: number;
  /** 1 where some thread stores the element, 0 where none does. */
  readonly written: Uint8Array;
  readonly writtenCount: number;
  /**
   * Per element: 1 + the launch-wide number of the one thread that stores it (blocks in x, y, z
   * order, then threads in x, y, z order, as CUDA numbers them); 0 where none does, 2³² − 1 where
   * several do. For a module, that of the last kernel that stores the buffer.
   */
  readonly writers: Uint32Array;
  /** Elements stored by more than one thread (of one block or of different blocks). */
  readonly overlapCount: number;
  readonly firstOverlap?: StoreOverlap;
  readonly grid: Dim3;
  readonly block: Dim3;
  readonly timeMs: number;
}

export type StoreCoverageResult = { readonly supported: true; readonly coverage: StoreCoverage } | { readonly supported: false; readonly why: string };

/** The thread function of a slice: block and thread index, then the kernel's arguments (only the target's array is used). */
type SliceFunction = (...args: unknown[]) => void;

const INDEX_PARAMS: readonly ThreadTag[] = ["blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z"];

/**
 * The elements of the module's `paramIndex`-th parameter (a buffer) that its kernels store, every
 * kernel over its whole grid. Overlaps count within one kernel (a later kernel's store is ordered
 * after an earlier one's).
 */
export function moduleStoreCoverage(module: LoweredModule, paramIndex: number): StoreCoverageResult {
  const param = module.source.params[paramIndex];
  const buffer = param === undefined ? undefined : module.source.bufferMap.get(param);
  if (buffer === undefined) throw new SimulationError(`module ${module.name}: parameter ${paramIndex} is not a buffer`);
  const elements = constantSize(buffer);
  if (elements === undefined) return { supported: false, why: `${buffer.name} has a symbolic shape` };
  const started = performance.now();
  const written = new Uint8Array(elements);
  let overlapCount = 0;
  let firstOverlap: StoreOverlap | undefined;
  let dims: { grid: Dim3; block: Dim3 } = { grid: [1, 1, 1], block: [1, 1, 1] };
  let writers: Uint32Array = new Uint32Array(elements);
  for (const kernel of module.kernels) {
    const k = kernel.params.findIndex((p) => p.kind === "buffer" && p.source.kind === "param" && p.source.index === paramIndex);
    if (k < 0) continue;
    const result = kernelStoreCoverage(kernel, k);
    if (!result.supported) return result;
    const c = result.coverage;
    for (let e = 0; e < elements; e++) if (c.written[e] === 1) written[e] = 1;
    overlapCount += c.overlapCount;
    firstOverlap ??= c.firstOverlap;
    dims = { grid: c.grid, block: c.block };
    writers = c.writers;
  }
  let writtenCount = 0;
  for (let e = 0; e < elements; e++) writtenCount += written[e]!;
  const coverage: StoreCoverage = {
    buffer: buffer.name,
    elements,
    written,
    writtenCount,
    writers,
    overlapCount,
    ...(firstOverlap === undefined ? {} : { firstOverlap }),
    ...dims,
    timeMs: performance.now() - started,
  };
  return { supported: true, coverage };
}

/** The elements of the kernel's `paramIndex`-th parameter (a buffer) its threads store. */
export function kernelStoreCoverage(kernel: DeviceKernel, paramIndex: number): StoreCoverageResult {
  const started = performance.now();
  const param = kernel.params[paramIndex];
  if (param?.kind !== "buffer") throw new SimulationError(`kernel ${kernel.name}: parameter ${paramIndex} is not a buffer`);
  const elements = constantSize(param.buffer);
  if (elements === undefined) return { supported: false, why: `${param.name} has a symbolic shape` };
  const dims = launchDims(kernel);
  const { grid, block } = dims;
  const threadsPerBlock = block[0] * block[1] * block[2];
  const threads = threadsPerBlock * grid[0] * grid[1] * grid[2];
  if (threads >= 2 ** 32 - 1) return { supported: false, why: `the launch has ${threads} threads, more than the coverage check numbers` };
  const sliced = sliceStores(kernel.body, param.buffer.data, param.name);
  if (!sliced.ok) return { supported: false, why: sliced.why };
  const scalars = new Set(kernel.params.flatMap((p) => (p.kind === "scalar" ? [p.var] : [])));
  if (sliced.body !== undefined && usesVar(sliced.body, (v) => scalars.has(v))) {
    return { supported: false, why: `where the kernel stores ${param.name} depends on its scalar parameters, which the coverage check is not given` };
  }

  // owner[e]: 1 + the launch-wide number of the first thread that stored element e (0: none; OVERLAPPED: several).
  const owner = new Uint32Array(elements);
  let current = 0;
  let overlapCount = 0;
  let firstOverlap: StoreOverlap | undefined;
  const mark = (e: number): number => {
    const previous = owner[e]!;
    if (previous === 0) owner[e] = current;
    else if (previous !== current && previous !== OVERLAPPED) {
      overlapCount++;
      firstOverlap ??= { element: e, first: threadOf(previous - 1, grid, block), second: threadOf(current - 1, grid, block) };
      owner[e] = OVERLAPPED;
    }
    return e;
  };
  if (sliced.body !== undefined) {
    const run = compileSlice(kernel, { ...kernel, body: sliced.body }, paramIndex, dims.bindings);
    const thread = run.instantiate(run.runtime, mark);
    const args: unknown[] = kernel.params.map((_, i) => (i === paramIndex ? new (typedArrayConstructorFor(param.buffer.dtype))(elements) : undefined));
    for (let bz = 0; bz < grid[2]; bz++)
      for (let by = 0; by < grid[1]; by++)
        for (let bx = 0; bx < grid[0]; bx++)
          for (let tz = 0; tz < block[2]; tz++)
            for (let ty = 0; ty < block[1]; ty++)
              for (let tx = 0; tx < block[0]; tx++) {
                current++;
                try {
                  thread(bx, by, bz, tx, ty, tz, ...args);
                } catch (err) {
                  const at = `thread (${tx}, ${ty}, ${tz}) of block (${bx}, ${by}, ${bz})`;
                  throw new SimulationError(`kernel ${kernel.name}: ${at}: ${err instanceof Error ? err.message : String(err)}`);
                }
              }
  }
  const written = new Uint8Array(elements);
  let writtenCount = 0;
  for (let e = 0; e < elements; e++) {
    if (owner[e] !== 0) {
      written[e] = 1;
      writtenCount++;
    }
  }
  const coverage: StoreCoverage = {
    buffer: param.name,
    elements,
    written,
    writtenCount,
    writers: owner,
    overlapCount,
    ...(firstOverlap === undefined ? {} : { firstOverlap }),
    grid,
    block,
    timeMs: performance.now() - started,
  };
  return { supported: true, coverage };
}

/** The owner of an element stored by two threads already (counted once). */
const OVERLAPPED = 2 ** 32 - 1;

function threadOf(n: number, grid: Dim3, block: Dim3): ThreadIndex {
  const perBlock = block[0] * block[1] * block[2];
  const b = Math.floor(n / perBlock);
  const t = n % perBlock;
  return {
    block: [b % grid[0], Math.floor(b / grid[0]) % grid[1], Math.floor(b / (grid[0] * grid[1]))],
    thread: [t % block[0], Math.floor(t / block[0]) % block[1], Math.floor(t / (block[0] * block[1]))],
  };
}

interface CompiledSlice {
  readonly runtime: ExecRuntime;
  instantiate(runtime: ExecRuntime, mark: (element: number) => number): SliceFunction;
}

/** The slice as a plain JS function (no barriers remain, so no generator), each target store's index passed through `$mark`. */
function compileSlice(kernel: DeviceKernel, sliced: DeviceKernel, paramIndex: number, bindings: ReturnType<typeof launchDims>["bindings"]): CompiledSlice {
  const target = kernel.params[paramIndex];
  if (target?.kind !== "buffer") throw new SimulationError(`kernel ${kernel.name}: parameter ${paramIndex} is not a buffer`);
  const ctx = new EmitContext(true, false, {
    elementIndex(_c, buffer, _indices, indexJs, access) {
      return access === "store" && buffer.data === target.buffer.data ? `$mark(${indexJs})` : indexJs;
    },
  });
  const params: string[] = INDEX_PARAMS.map((tag) => {
    const name = ctx.names.internal(tag.replace(".", "_"));
    for (const b of bindings) if (b.tag === tag) ctx.bindVar(b.variable, name, { lo: 0, hi: b.extent - 1 });
    return name;
  });
  kernel.params.forEach((p, i) => {
    if (p.kind === "scalar") {
      params.push(ctx.bindVar(p.var).name);
      return;
    }
    const array = ctx.names.fresh(p.buffer.name);
    if (i === paramIndex) {
      ctx.setArray(p.buffer.data, array, p.buffer);
      declareBufferLayout(ctx, p.buffer, array);
    }
    params.push(array);
  });
  emitStmt(ctx, sliced.body);
  const source = assembleSource(ctx, `${kernel.name}_stores`, params);
  let factory: (rt: ExecRuntime, mark: (element: number) => number) => SliceFunction;
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- compiling to JS is the point
    factory = new Function("$rt", "$mark", source) as typeof factory;
  } catch (err) {
    throw new SimulationError(`kernel ${kernel.name}: the generated JS of its store slice does not compile (${String(err)}):\n${source}`);
  }
  return { runtime: makeRuntime(ctx.sites), instantiate: factory };
}
