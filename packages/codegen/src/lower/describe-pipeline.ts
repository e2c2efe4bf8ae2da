/** What each lowering step does, for documentation and `--emit stages`. */
import type { TargetKind } from "../targets/target.js";
import { C_LOWERING_PASSES } from "./c-pipeline.js";
import { CUDA_LOWERING_PASSES } from "./cuda-pipeline.js";

export interface PipelineStep {
  readonly name: string;
  readonly does: string;
}

/** Every step of `lower` for targets of `kind`, in order. */
export function describePipeline(kind: TargetKind = "cuda"): PipelineStep[] {
  const passes = kind === "c" ? C_LOWERING_PASSES : CUDA_LOWERING_PASSES;
  const steps = passes.map((p) => ({ name: p.name, does: PASS_DESCRIPTIONS[p.name] ?? "" }));
  if (kind === "c") return steps;
  return [
    ...steps,
    { name: "splitHostDevice", does: PASS_DESCRIPTIONS["splitHostDevice"]! },
    { name: "verifyGpuCode", does: PASS_DESCRIPTIONS["verifyGpuCode"]! },
  ];
}

const PASS_DESCRIPTIONS: Readonly<Record<string, string>> = {
  lowerInitBlock: "init statements become guarded stores at the start of the reduction",
  planBufferAllocation: "each allocation moves to the lowest scope covering its uses",
  markPaddingGuards:
    "predicate conjuncts `v < extent` of blocks that only move values between local and shared buffers, and write past the end of the dimension `v` indexes when out of range, are marked as padding guards",
  convertBlocksToOpaque: "block iterators are replaced by their bindings",
  compactBufferAllocation: "allocations shrink to the region used below them",
  dropPaddingGuards:
    "marked padding guards are removed where every access of their block provably stays inside its compacted buffer: padded tiles compute unguarded, only global loads and stores stay guarded",
  lowerMatchBuffer: "match_buffer views (tensor intrinsics' operands) become accesses of their source buffers; their strides and offsets become expressions",
  injectSoftwarePipeline: "annotated loops become prologue, body and epilogue with multi-versioned buffers",
  planBufferSwizzle: "`buffer_swizzle` annotations (swizzleLayout) checked on the compacted tiles and moved to a function attribute",
  lowerTmaCopy:
    "async pipeline copies of whole 2-D tiles annotated `tma_copy` (sm_90) become TMA boxes issued by one thread on a full mbarrier per version, and their consumers' waits mbarrier parity waits",
  lowerOpaqueBlock: "blocks removed: predicates become ifs, thread bindings become thread_extent attributes, pragma_* and launch-bounds annotations attributes",
  flattenBuffer: "multi-dimensional buffers become flat buffers",
  simplify: "arithmetic simplification",
  lowerWarpMemory: "warp-scope registers of the mma.sync intrinsics become per-thread local registers; their operands become each thread's register index",
  vectorizeLoop:
    "vectorized loops become Ramp/Broadcast accesses (under one guard per vector where every lane provably agrees on it), or serial loops; a 64/128-bit access not provably aligned is a LoweringError",
  injectVirtualThread:
    "virtual threads pushed down: code independent of the vthread stays once, dependent statements are copied per vthread (unrolled below 16), dependent allocations get a slice per vthread",
  unrollLoop: "unrolled loops, and serial loops within a pragma_auto_unroll_max_step budget, are expanded (or marked #pragma unroll)",
  threadSync: "barriers for shared memory (accesses through `tvm_access_ptr` pointers included)",
  injectBufferSwizzle:
    "accesses to swizzled shared buffers (scalar, vector, ldmatrix rows) go through the XOR index map; wgmma operand pointers start at the tile's stored first element",
  injectPTXAsyncCopy: "copies in `async_scope` become `T.ptx_cp_async` (cp.async, sm_80+)",
  injectWgmmaSync:
    "wgmma (sm_90a): `wgmma_fence` before each run of wgmmas, `wgmma_wait_group N` before each barrier (N: the last run's groups when what is written until their retirement is another version of the tiles they read, else 0), before a store into register A fragments the last run does not read (N: that run's groups) and `wgmma_wait_group 0` before each other use of their accumulators",
  splitHostDevice:
    "one kernel per launch nest; workspaces; launch metadata, with the __launch_bounds__ minimum of blocks per SM; a kernel's shared.dyn buffers merged into one dynamic allocation",
  verifyGpuCode: "threads, shared memory, vector width and resident blocks per SM against the target",
};
