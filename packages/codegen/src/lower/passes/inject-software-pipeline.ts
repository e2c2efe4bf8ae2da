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
import { type PipelineForm, pipelineLoop } from "../software-pipeline/pipeline.js";
import { requireOpaqueBlocks } from "../util/block-checks.js";

export interface InjectSoftwarePipelineOptions {
  /**
   * Give the blocks this pass makes (each pipeline's allocating block, its sections, commit groups
   * and blockized statements) the regions of their body, as TVM does (default true). The lowering
   * pipeline turns it off: no later pass of ours reads those regions (lowerOpaqueBlock drops the
   * blocks), and inferring them was half of this pass's time on the fast GEMM.
   */
  readonly blockRegions?: boolean;
  /**
   * State the prologue's and epilogue's bounds checks in TVM's forms (`i == 2` for `2 <= i` at the
   * last iteration, checks of a symbolic epilogue on `i + K`; default true). The lowering pipeline
   * keeps the plain bounds (`1 <= k_0`), which the course's golden CUDA was generated with.
   */
  readonly tvmGuards?: boolean;
}

class PipelineInjector extends IRMutator {
  private readonly loops: For[] = [];

  constructor(private readonly form: PipelineForm) {
    super();
  }

  override visitFor(s: For): Stmt {
    this.loops.push(s);
    const visited = super.visitFor(s);
    this.loops.pop();
    if (visited.kind !== "For" || !hasPipelineAnnotation(visited)) return visited;
    return pipelineLoop(visited, this.loops, this.form);
  }
}

export function injectSoftwarePipeline(func: PrimFunc, opts: InjectSoftwarePipelineOptions = {}): PrimFunc {
  requireOpaqueBlocks(PASS, func.body);
  const body = new PipelineInjector({ blockRegions: opts.blockRegions !== false, tvmGuards: opts.tvmGuards !== false }).visitStmt(func.body);
  return body === func.body ? func : withBody(func, body);
}

export const injectSoftwarePipelinePass: Pass = { name: PASS, run: (func) => injectSoftwarePipeline(func, { blockRegions: false, tvmGuards: false }) };
