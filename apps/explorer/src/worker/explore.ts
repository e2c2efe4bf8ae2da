/** One run of the explorer: the student's code, then the analyses of what it scheduled. */
import type { RunRequest, RunResult } from "../protocol.js";
import { EXPLORER_SIZE, WORKLOADS } from "../workloads.js";
import { analyze } from "./analyze.js";
import { gpuJob, wgslSource } from "./gpu-job.js";
import { runStudent } from "./run-student.js";

const NOT_SCHEDULED = { ok: false, reason: "the schedule did not run to the end" } as const;

/** Runs `request`, collecting what the code prints through `console`. */
export function explore(request: RunRequest): RunResult {
  const printed: string[] = [];
  const saved = { log: console.log, info: console.info, warn: console.warn, error: console.error };
  const capture = (...args: unknown[]) => {
    printed.push(args.map(String).join(" "));
  };
  Object.assign(console, { log: capture, info: capture, warn: capture, error: capture });
  let run: ReturnType<typeof runStudent>;
  try {
    run = runStudent(request.code, WORKLOADS[request.workload], EXPLORER_SIZE);
  } finally {
    Object.assign(console, saved);
  }
  const analysis = run.scheduled === undefined ? undefined : analyze(run.scheduled.func, run.scheduled.original);
  const gpu = run.scheduled === undefined ? NOT_SCHEDULED : gpuJob(run.scheduled.func, run.scheduled.original, request.gpuLimits);
  return {
    steps: run.steps,
    error: run.error,
    loopTree: analysis?.loopTree ?? NOT_SCHEDULED,
    cuda: analysis?.cuda ?? NOT_SCHEDULED,
    verdict: analysis?.verdict ?? NOT_SCHEDULED,
    bankConflicts: analysis?.bankConflicts ?? NOT_SCHEDULED,
    tiling: analysis?.tiling ?? NOT_SCHEDULED,
    gpu,
    wgsl: wgslSource(gpu),
    printed,
  };
}
