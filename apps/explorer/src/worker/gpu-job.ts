/**
 * What the page needs to run the student's kernel on WebGPU: the WGSL of the scheduled function
 * and of the unscheduled baseline, seeded random inputs, and the JS executor's outputs where that
 * is cheap. Built in the worker, run on the page: the student's code never sees the GPU device.
 */
import { type AdapterLimits, codegenWgsl, lower, target, webGpuTargetFromLimits } from "@tessera/codegen";
import { type PrimFunc, type TypedArray, compilePrimFunc, randomArgs } from "@tessera/ir";
import type { GpuJob, Outcome } from "../protocol.js";
import { bindUnscheduled } from "./baseline.js";

/** The seed of the inputs (the simulator's comparison uses seed 0 too). */
const SEED = 0;
/** Up to this many loop iterations the JS executor also computes the expected outputs (a 256³ gemm is 2^24). */
const EXECUTOR_BUDGET = 2 ** 25;

function outcome<T>(f: () => T): Outcome<T> {
  try {
    return { ok: true, value: f() };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  }
}

/** Iterations of the function's loop nests, when every extent is a constant. */
function iterations(func: PrimFunc): number | undefined {
  let total = 0;
  let constant = true;
  const visit = (s: PrimFunc["body"], outer: number): void => {
    switch (s.kind) {
      case "For":
        if (s.extent.kind !== "IntImm") constant = false;
        else visit(s.body, outer * s.extent.value);
        return;
      case "SeqStmt":
        for (const child of s.seq) visit(child, outer);
        return;
      case "BlockRealize":
        visit(s.block.body, outer);
        return;
      default:
        total += outer;
    }
  };
  visit(func.body, 1);
  return constant ? total : undefined;
}

function expectedOutputs(original: PrimFunc, inputs: readonly TypedArray[]): Outcome<TypedArray[]> {
  const work = iterations(original);
  if (work === undefined || work > EXECUTOR_BUDGET) {
    return { ok: false, reason: `not computed: the function runs ${work ?? "a symbolic number of"} iterations, too many for the JS executor here` };
  }
  return outcome(() => {
    const args = inputs.map((a) => a.slice()) as TypedArray[];
    compilePrimFunc(original).run(args);
    return args;
  });
}

/** `limits`: the page's adapter's (the course's manual schedule needs more workgroup memory than WebGPU's default 16 KiB). */
export function gpuJob(scheduled: PrimFunc, original: PrimFunc, limits: AdapterLimits | undefined): Outcome<GpuJob> {
  return outcome(() => {
    const webgpu = limits === undefined ? target("webgpu") : webGpuTargetFromLimits(limits);
    const inputs = randomArgs(original, SEED);
    return {
      scheduled: outcome(() => codegenWgsl(lower(scheduled, webgpu))),
      baseline: outcome(() => codegenWgsl(lower(bindUnscheduled(original), webgpu))),
      inputs,
      expected: expectedOutputs(original, inputs),
    };
  });
}

/** The scheduled kernel's WGSL source, or why there is none. */
export function wgslSource(job: Outcome<GpuJob>): Outcome<string> {
  if (!job.ok) return job;
  const built = job.value.scheduled;
  return built.ok ? { ok: true, value: built.value.source } : built;
}
