/**
 * Compiles a device kernel to a JavaScript generator function run once per thread, reusing the
 * CPU executor's emitter with hooks:
 * - `thread_extent` variables are bound to the generator's block/thread index parameters (so the
 *   attributes are not loops: every thread runs the whole body);
 * - `T.tvm_storage_sync("shared")` becomes `yield <barrier id>`;
 * - `shared` Allocates use the block's arrays (passed in), `local` ones are fresh per thread and
 *   poisoned;
 * - with race detection, every access to shared memory or to a global buffer the kernel writes
 *   goes through that memory's shadow;
 * - `T.ptx_cp_async` copies land when their group is waited for (see async-copy-queue.ts).
 * - with the bank-conflict model, every shared access instruction is recorded by the recorder;
 * - WMMA fragments are per-warp storage and the WMMA intrinsics warp-collective calls (wmma/);
 * - ldmatrix and mma.sync yield `COLLECTIVE_YIELD` after arriving at their warp's collective (mma/);
 * - mbarrier waits yield `MBARRIER_YIELD` until their phase completes, and bulk copies land as
 *   mbarrier-runtime.ts says (with bulk copies, every shared access is checked against them).
 */
import { type Buffer, type Call, type PrimExpr, type Var, describeAccess, lanesOf, printExpr, constantSize, typedArrayConstructorFor } from "@tessera/ir";
import { EmitContext, type ErrorSiteTable, type ExecRuntime, RUNTIME_PRELUDE, declareBufferLayout, emitStmt } from "@tessera/ir/executor-kit";
import type { DeviceKernel } from "@tessera/codegen";
import type { BankConflictRecorder } from "./bank-recorder.js";
import { type BankSite, type BankSlot, BankSiteTable } from "./bank-sites.js";
import { SimulationError } from "./errors.js";
import { type LaunchDims, type ThreadTag, launchDims } from "./launch.js";
import { poisonLiteral } from "./poison.js";
import type { MemoryScope, RaceShadow } from "./race-shadow.js";
import { writtenGlobals } from "./written-globals.js";
import { KernelLoopOutliner, POISON_HELPER } from "./outline-loops.js";
import { emitMbarrierCall, kernelTensorMaps, usesBulkCopies } from "./emit-mbarrier.js";
import { MmaEmitter } from "./mma/emit-mma.js";
import type { WarpMmaSite } from "./mma/warp-mma.js";
import { WmmaEmitter, isFragmentScope } from "./wmma/emit-wmma.js";
import type { CollectiveSite } from "./wmma/warp-collectives.js";

/** A `shared` Allocate: one array per thread block. */
export interface SharedAllocation {
  readonly buffer: Buffer;
  readonly elements: number;
}

/** Memory the race detector shadows: a shared allocation, or a global buffer the kernel writes. */
export interface TrackedMemory {
  readonly buffer: Buffer;
  readonly scope: MemoryScope;
  readonly elements: number;
}

/** An instrumented access (to tracked memory), named in race reports. */
export interface AccessSite {
  readonly buffer: string;
  readonly access: "load" | "store";
  /** e.g. `A_shared[threadIdx.x + 1]` */
  readonly text: string;
}

/**
 * One thread: called with the block index (x, y, z), the thread index (x, y, z), the kernel's
 * arguments in parameter order and the block's shared arrays; yields a barrier id at each barrier.
 */
export type ThreadFunction = (...args: unknown[]) => Generator<number, void, undefined>;

export interface CompiledKernel {
  readonly kernel: DeviceKernel;
  readonly dims: LaunchDims;
  /** The generated JS, for inspection. */
  readonly source: string;
  readonly shared: readonly SharedAllocation[];
  /** Memory with a shadow, in the order `instantiate` takes the shadows (empty without race detection). */
  readonly tracked: readonly TrackedMemory[];
  /** Instrumented accesses (empty without race detection). */
  readonly accessSites: readonly AccessSite[];
  /** Shared access sites and instructions of the bank-conflict model (empty without it). */
  readonly bankSites: readonly BankSite[];
  readonly bankSlots: readonly BankSlot[];
  /** The warp-collective (WMMA) call sites, which `$rt.wmma` runs. */
  readonly collectiveSites: readonly CollectiveSite[];
  /** The mma.sync call sites (ldmatrix, mma, store), which `$rt.mma` runs. */
  readonly mmaSites: readonly WarpMmaSite[];
  /** `T.tvm_storage_sync(...)` statements in the order they occur; a barrier id indexes this list. */
  readonly barriers: readonly string[];
  /** Bounds-check and division sites of the executor's runtime. */
  readonly errorSites: ErrorSiteTable;
  /**
   * The thread function, given the runtime helpers, one shadow per tracked memory (with race
   * detection) and the bank-conflict recorder (with the bank-conflict model).
   */
  instantiate(runtime: ExecRuntime, shadows: readonly RaceShadow[], banks: BankConflictRecorder | undefined): ThreadFunction;
}

export interface CompileKernelOptions {
  /** Route accesses to shared memory and written global buffers through shadows (race and uninitialised-read detection). */
  readonly detectRaces: boolean;
  /** Record shared accesses for the bank-conflict model (default false). */
  readonly bankConflicts?: boolean;
}

const INDEX_PARAMS: readonly ThreadTag[] = ["blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z"];

export function compileKernel(kernel: DeviceKernel, opts: CompileKernelOptions): CompiledKernel {
  const dims = launchDims(kernel);
  const shared: SharedAllocation[] = [];
  const sharedIndex = new Map<Var, number>();
  const tracked: TrackedMemory[] = [];
  const trackedIndex = new Map<Var, number>();
  const track = (buffer: Buffer, scope: MemoryScope, elements: number): void => {
    if (!opts.detectRaces || trackedIndex.has(buffer.data)) return;
    trackedIndex.set(buffer.data, tracked.length);
    tracked.push({ buffer, scope, elements });
  };
  const accessSites: AccessSite[] = [];
  const bankSites = new BankSiteTable();
  const barriers: string[] = [];
  const sharedParam = (k: number): string => `$shared${k}`;
  // The thread's asynchronous copy queue is the only name of the generator the context does not track.
  const outliner = new KernelLoopOutliner(["$async"]);
  // Made once the thread function's parameter names are known (before any statement is emitted).
  let wmma: WmmaEmitter | undefined;
  let mma: MmaEmitter | undefined;

  const bulkCopies = usesBulkCopies(kernel.body);
  const tensorMaps = kernelTensorMaps(kernel);

  const ctx = new EmitContext(true, false, {
    loop: outliner.loop,
    barrier(c: EmitContext, call: Call) {
      const scope = call.args[0]?.kind === "StringImm" ? call.args[0].value : undefined;
      if (scope !== "shared" && scope !== "shared.dyn") {
        throw new SimulationError(`kernel ${kernel.name}: T.tvm_storage_sync(${JSON.stringify(scope)}) is not supported (only "shared" barriers)`);
      }
      barriers.push(`barrier #${barriers.length + 1} (${printExpr(call)})`);
      c.line(`yield ${barriers.length - 1};`);
    },
    intrinsic: (c: EmitContext, call: Call) => wmma!.intrinsic(c, call) || mma!.intrinsic(c, call) || emitMbarrierCall(kernel.name, c, call, tensorMaps),
    allocation(c: EmitContext, buffer: Buffer, size: string, what) {
      // Blocks are lowered away before a kernel is simulated: a block's buffer keeps the executor's default.
      if (what !== "T.allocate") return undefined;
      if (isFragmentScope(buffer.scope)) return wmma!.allocation(buffer, size);
      switch (buffer.scope) {
        case "shared":
        case "shared.dyn": {
          let k = sharedIndex.get(buffer.data);
          if (k === undefined) {
            k = shared.length;
            const elements = sharedSize(kernel.name, buffer, size);
            shared.push({ buffer, elements });
            sharedIndex.set(buffer.data, k);
            track(buffer, "shared", elements);
          }
          return sharedParam(k);
        }
        case "local": {
          const ctor = typedArrayConstructorFor(buffer.dtype).name;
          const poison = poisonLiteral(buffer.dtype);
          if (outliner.outlining && /^\d+$/.test(size)) return outliner.scratchArray(c, ctor, Number(size), poison);
          return `$poisoned(new ${ctor}(${size}), ${poison})`;
        }
        default:
          throw new SimulationError(
            `kernel ${kernel.name}: T.allocate of ${buffer.name} in "${buffer.scope}" memory is not supported in device code ` +
              `(global intermediates are workspaces of the lowered module)`,
          );
      }
    },
    elementIndex(c, buffer, indices, indexJs, access, lane, asyncCopy) {
      const t = trackedIndex.get(buffer.data);
      let js = indexJs;
      if (t !== undefined) {
        accessSites.push({ buffer: buffer.name, access, text: describeAccess(buffer, indices) });
        js = `$shadow${t}.${access === "load" ? "read" : "write"}(${js}, ${accessSites.length - 1})`;
      }
      const k = sharedIndex.get(buffer.data);
      if (k === undefined) return js;
      // Bulk copies land behind the threads' backs: every shared access is checked against them.
      // (A cp.async's destination is checked when an mbarrier takes the copy over.)
      if (bulkCopies && asyncCopy !== true) js = `$rt.mbar.access(${c.arrayOf(buffer.data) ?? sharedParam(k)}, ${js}, ${access === "store"})`;
      // A cp.async's elements land outside any shared-memory instruction of the thread: the bank
      // model records the copy where it is issued (asyncCopyIssue).
      const slot = opts.bankConflicts === true && asyncCopy !== true ? bankSites.slotFor(buffer, indices, access, lane) : undefined;
      return slot === undefined ? js : `$banks.record(${js}, ${slot})`;
    },
    asyncCopyIssue(_c: EmitContext, buffer: Buffer, indices: readonly PrimExpr[], indexJs: string) {
      if (opts.bankConflicts !== true || !sharedIndex.has(buffer.data)) return indexJs;
      // One warp-level store of the copy's width (4, 8 or 16 bytes per thread), as LDGSTS is.
      const lanes = lanesOf(indices[0]!.dtype);
      const slot = bankSites.slotFor(buffer, indices, "store", lanes === 1 ? undefined : 0, true);
      return slot === undefined ? indexJs : `$banks.record(${indexJs}, ${slot})`;
    },
  });

  const params: string[] = INDEX_PARAMS.map((tag) => {
    const name = ctx.names.internal(tag.replace(".", "_"));
    for (const b of dims.bindings) if (b.tag === tag) ctx.bindVar(b.variable, name, { lo: 0, hi: b.extent - 1 });
    return name;
  });
  // A thread index the kernel does not bind is 0 (and its parameter name is unknown to the loop outliner).
  const threadJs = ([3, 4, 5] as const).map((k) => (dims.bindings.some((b) => b.tag === INDEX_PARAMS[k]) ? params[k]! : "0"));
  wmma = new WmmaEmitter(kernel.name, [threadJs[0]!, threadJs[1]!, threadJs[2]!]);
  const ldmatrixBankSite =
    opts.bankConflicts === true
      ? (buffer: Buffer, text: string) => bankSites.gatheredSite({ buffer: buffer.name, access: "load", text, widthBytes: 16 })
      : undefined;
  mma = new MmaEmitter(kernel.name, [threadJs[0]!, threadJs[1]!, threadJs[2]!], ldmatrixBankSite);
  const written = writtenGlobals(kernel);
  for (const p of kernel.params) {
    if (p.kind === "scalar") {
      params.push(ctx.bindVar(p.var).name);
      continue;
    }
    const array = ctx.names.fresh(p.buffer.name);
    ctx.setArray(p.buffer.data, array, p.buffer);
    declareBufferLayout(ctx, p.buffer, array);
    params.push(array);
    // A symbolic size fails at simulation (checkArguments); the shadow then never runs.
    if (written.has(p.buffer.data)) track(p.buffer, "global", constantSize(p.buffer) ?? 0);
  }
  emitStmt(ctx, kernel.body);
  params.push(...shared.map((_, k) => sharedParam(k)));

  const source = assemble(ctx, kernel.name, params, tracked.length, outliner.declarations());
  let factory: CompiledKernel["instantiate"];
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- compiling to JS is the point
    factory = new Function("$rt", "$shadows", "$banks", source) as typeof factory;
  } catch (err) {
    throw new SimulationError(`kernel ${kernel.name}: the generated JS does not compile (${String(err)}):\n${source}`);
  }
  return {
    kernel,
    dims,
    source,
    shared,
    tracked,
    accessSites,
    bankSites: bankSites.sites,
    bankSlots: bankSites.slots,
    collectiveSites: wmma.sites,
    mmaSites: mma.sites,
    barriers,
    errorSites: ctx.sites,
    instantiate: factory,
  };
}

function sharedSize(kernelName: string, buffer: Buffer, size: string): number {
  if (!/^\d+$/.test(size)) {
    throw new SimulationError(`kernel ${kernelName}: shared allocation ${buffer.name} must have a constant size, got ${size}`);
  }
  return Number(size);
}

function assemble(ctx: EmitContext, kernelName: string, params: readonly string[], shadowCount: number, declarations: readonly string[]): string {
  const jsName = kernelName.replace(/[^A-Za-z0-9_$]/g, "_").replace(/^(?=[0-9])/, "_");
  const shadowDecls = Array.from({ length: shadowCount }, (_, k) => `const $shadow${k} = $shadows[${k}];`);
  return [
    '"use strict";',
    ...RUNTIME_PRELUDE,
    ...shadowDecls,
    POISON_HELPER,
    ...declarations,
    `return function* ${jsName}(${params.join(", ")}) {`,
    ...ctx.prologueLines(),
    ...ctx.bodyLines(),
    // Copies still in flight when the thread ends land then.
    ...(ctx.usesAsyncCopies() ? ["  $async.drain();"] : []),
    "};",
    "",
  ].join("\n");
}
