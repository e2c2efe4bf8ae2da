/**
 * Pass 5, `injectSoftwarePipeline` (TVM InjectSoftwarePipeline): every loop annotated with
 * `software_pipeline_stage` and `software_pipeline_order` (optionally
 * `software_pipeline_async_stages`) becomes prologue, steady-state body and epilogue, with the
 * buffers allocated for its body multi-versioned where a later stage reads what an earlier stage
 * wrote (see ../software-pipeline/). Inner pipelines are built before outer ones. Runs on opaque
 * blocks after compactBufferAllocation, before lowerOpaqueBlock.
 */
import { type For, IRMutator, type PrimFunc, type Stmt, withBody } from "@tessera/ir";
import type { Pass } from "../pass.js";
import { PASS, hasPipelineAnnotation } from "../software-pipeline/annotations.js";
import { pipelineLoop } from "../software-pipeline/pipeline.js";
import { requireOpaqueBlocks } from "../util/block-checks.js";

export interface InjectSoftwarePipelineOptions {
  /**
   * Give the blocks this pass makes (each pipeline's allocating block, its sections, commit groups
   * and blockized statements) the regions of their body, as TVM does (default true). The lowering
   * pipeline turns it off: no later pass of ours reads those regions (lowerOpaqueBlock drops the
   * blocks), and inferring them was half of this pass's time on the fast GEMM.
   */
  readonly blockRegions?: boolean;
}

class PipelineInjector extends IRMutator {
  private readonly loops: For[] = [];

  constructor(private readonly blockRegions: boolean) {
    super();
  }

  override visitFor(s: For): Stmt {
    this.loops.push(s);
    const visited = super.visitFor(s);
    this.loops.pop();
    if (visited.kind !== "For" || !hasPipelineAnnotation(visited)) return visited;
    return pipelineLoop(visited, this.loops, this.blockRegions);
  }
}

export function injectSoftwarePipeline(func: PrimFunc, opts: InjectSoftwarePipelineOptions = {}): PrimFunc {
  requireOpaqueBlocks(PASS, func.body);
  const body = new PipelineInjector(opts.blockRegions !== false).visitStmt(func.body);
  return body === func.body ? func : withBody(func, body);
}

export const injectSoftwarePipelinePass: Pass = { name: PASS, run: (func) => injectSoftwarePipeline(func, { blockRegions: false }) };
