/**
 * The lowering pipeline: scheduled TensorIR → `LoweredModule` (device kernels, host workspaces,
 * launch metadata). Pass order as in docs/architecture/lowering.md.
 */
import type { PrimFunc } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import type { LoweredModule, PassStage } from "../lowered.js";
import { type Target, target as resolveTarget } from "../target/target.js";
import type { Pass, PassContext } from "./pass.js";
import { PASSES_FRONT, simplifyPass } from "./passes/index.js";
import { injectPTXAsyncCopyPass } from "./passes/inject-ptx-async-copy.js";
import { injectVirtualThreadPass } from "./passes/inject-virtual-thread.js";
import { functionSymbol, splitHostDevice } from "./passes/split-host-device.js";
import { threadSyncPass } from "./passes/thread-sync.js";
import { unrollLoopPass } from "./passes/unroll-loop.js";
import { vectorizeLoopPass } from "./passes/vectorize-loop.js";
import { verifyGpuCode } from "./passes/verify-gpu-code.js";

export interface LowerOptions {
  /** Keep the IR after every pass in `LoweredModule.stages` (default false). */
  readonly recordStages?: boolean;
  /** Skip `verifyGpuCode` (e.g. to inspect a kernel that exceeds the target's limits). */
  readonly skipVerify?: boolean;
}

/** The function-to-function passes, in order; `splitHostDevice` and `verifyGpuCode` follow them. */
export const LOWERING_PASSES: readonly Pass[] = [
  ...PASSES_FRONT,
  simplifyPass,
  vectorizeLoopPass,
  injectVirtualThreadPass,
  unrollLoopPass,
  threadSyncPass,
  injectPTXAsyncCopyPass,
  simplifyPass,
];

export interface PipelineStep {
  readonly name: string;
  readonly does: string;
}

/** Every step of `lower`, in order, for documentation and `--emit stages`. */
export function describePipeline(): PipelineStep[] {
  return [
    ...LOWERING_PASSES.map((p) => ({ name: p.name, does: PASS_DESCRIPTIONS[p.name] ?? "" })),
    { name: "splitHostDevice", does: PASS_DESCRIPTIONS["splitHostDevice"]! },
    { name: "verifyGpuCode", does: PASS_DESCRIPTIONS["verifyGpuCode"]! },
  ];
}

const PASS_DESCRIPTIONS: Readonly<Record<string, string>> = {
  lowerInitBlock: "init statements become guarded stores at the start of the reduction",
  planBufferAllocation: "each allocation moves to the lowest scope covering its uses",
  convertBlocksToOpaque: "block iterators are replaced by their bindings",
  compactBufferAllocation: "allocations shrink to the region used below them",
  injectSoftwarePipeline: "annotated loops become prologue, body and epilogue with multi-versioned buffers",
  lowerOpaqueBlock: "blocks removed: predicates become ifs, thread bindings become thread_extent attributes, pragma_* and launch-bounds annotations attributes",
  flattenBuffer: "multi-dimensional buffers become flat buffers",
  simplify: "arithmetic simplification",
  vectorizeLoop: "vectorized loops become Ramp/Broadcast accesses, or serial loops; a 64/128-bit access not provably aligned is a LoweringError",
  injectVirtualThread:
    "virtual threads pushed down: code independent of the vthread stays once, dependent statements are copied per vthread (unrolled below 16), dependent allocations get a slice per vthread",
  unrollLoop: "unrolled loops, and serial loops within a pragma_auto_unroll_max_step budget, are expanded (or marked #pragma unroll)",
  threadSync: "barriers for shared memory",
  injectPTXAsyncCopy: "copies in `async_scope` become `T.ptx_cp_async` (cp.async, sm_80+)",
  splitHostDevice: "one kernel per launch nest; workspaces; launch metadata, with the __launch_bounds__ minimum of blocks per SM; a kernel's shared.dyn buffers merged into one dynamic allocation",
  verifyGpuCode: "threads, shared memory, vector width and resident blocks per SM against the target",
};

/** Lowers a scheduled function (or a schedule's current function) for a GPU target. */
export function lower(input: PrimFunc | Schedule, targetOrName: Target | string, opts: LowerOptions = {}): LoweredModule {
  const source = isPrimFunc(input) ? input : input.func;
  const t = typeof targetOrName === "string" ? resolveTarget(targetOrName) : targetOrName;
  const ctx: PassContext = { target: t };
  const stages: PassStage[] = [];
  let func = source;
  for (const pass of LOWERING_PASSES) {
    func = pass.run(func, ctx);
    if (opts.recordStages === true) stages.push({ pass: pass.name, func });
  }
  const { kernels, workspaces } = splitHostDevice(func);
  if (opts.recordStages === true) stages.push({ pass: "splitHostDevice", func });
  if (opts.skipVerify !== true) for (const kernel of kernels) verifyGpuCode(kernel, t);
  return { name: functionSymbol(source), target: t, source, workspaces, kernels, stages };
}

function isPrimFunc(x: PrimFunc | Schedule): x is PrimFunc {
  return (x as { kind?: unknown }).kind === "PrimFunc";
}
