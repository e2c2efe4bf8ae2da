/**
 * TVM's VerifyGPUCode: rejects a candidate before anything is compiled — first the cheap check of
 * the threads per block against the bounds MultiLevelTiling annotated
 * (`meta_schedule.thread_extent_low/high_inclusive`), then lowering for the target, whose last
 * pass checks the GPU limits (threads, shared memory, vthreads, vector widths, local memory).
 * The lowered module is kept, keyed by the scheduled function, for the builder to reuse
 * (`loweredModuleFor`).
 */
import { type GpuLimit, GpuVerifyError, type LoweredModule, LoweringError, lower } from "@tessera/codegen";
import type { PrimFunc } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import { THREAD_EXTENT_HIGH, THREAD_EXTENT_LOW, annotationNumber } from "../schedule-utils/annotations.js";
import { gpuTargetOf, type TuneContext } from "../tune-context.js";
import { annotatedBlocks, blockThreadExtents } from "./annotated.js";
import { POSTPROC_OK, type Postproc, type PostprocResult, rejected } from "../interfaces/postproc.js";

const LOWERED = new WeakMap<PrimFunc, LoweredModule>();

/** The module VerifyGPUCode lowered for exactly this function (same object), if it did. */
export function loweredModuleFor(func: PrimFunc): LoweredModule | undefined {
  return LOWERED.get(func);
}

/** Keeps `module` as VerifyGPUCode's module of `func` (a candidate verified in a search worker thread, rebuilt here). */
export function rememberLoweredModule(func: PrimFunc, module: LoweredModule): void {
  LOWERED.set(func, module);
}

export class VerifyGPUCode implements Postproc {
  readonly name = "verifyGpuCode";

  apply(sch: Schedule, ctx: TuneContext): PostprocResult {
    for (const { rv, node } of annotatedBlocks(sch, THREAD_EXTENT_LOW)) {
      const low = annotationNumber(node.annotations, THREAD_EXTENT_LOW) ?? 1;
      const high = annotationNumber(node.annotations, THREAD_EXTENT_HIGH) ?? Infinity;
      const threads = [...blockThreadExtents(sch, rv).values()].reduce((a, b) => a * b, 1);
      if (threads < low) return rejected(`fewer threads per block than ${low}`);
      if (threads > high) return rejected(`more threads per block than ${high}`);
    }
    const func = sch.func;
    try {
      LOWERED.set(func, lower(func, gpuTargetOf(ctx, "VerifyGPUCode")));
    } catch (err) {
      if (err instanceof GpuVerifyError && err.limits.length > 0)
        return rejected(`exceeds the target's ${err.limits.map(describeLimit).join(" and ")}`, err.message);
      if (!(err instanceof LoweringError)) throw err;
      return rejected(`${err.name}: ${firstLine(err.message)}`, err.message);
    }
    return POSTPROC_OK;
  }
}

const LIMIT_WORDS: Readonly<Record<GpuLimit, string>> = {
  threads: "threads per block",
  grid: "grid size",
  "shared-memory": "shared memory per block",
  "vector-width": "vector width",
  "local-memory": "local memory per thread",
};

function describeLimit(limit: GpuLimit): string {
  return LIMIT_WORDS[limit];
}

function firstLine(message: string): string {
  const line = message.split("\n")[0] ?? message;
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}
