/**
 * The CPU measuring backend of the runner's child process: loads the candidate's shared library
 * (dlopen), runs it once on the seeded random arguments for the checker when asked, then times it
 * with TVM's CPU time_evaluator semantics (`number` calls per sample, grown until a sample lasts
 * `minRepeatMs`, `repeat` samples; the calls are timed in native code). The checked run is the
 * warm-up, and a candidate whose checked run already took longer than `stopAboveMsPerRun` (several
 * times the fastest so far: it cannot be the best) keeps that run as its only sample, so a slow
 * candidate costs one run instead of five or more. A candidate that crashes (a segfault) takes this
 * process down; the pool reports it and starts a fresh child.
 */
import { type AnyTypedArray, openHostLibrary, timeEvaluator } from "@tessera/runtime";
import type { MeasureBackend, MeasureResult, MeasureTask } from "./measure-backend.js";
import { digestOf } from "./output-digest.js";
import { RandomArgsCache } from "./random-args.js";

const drawn = new RandomArgsCache();

function argumentsOf(task: MeasureTask): AnyTypedArray[] {
  // A copy: the candidate writes its outputs, and the check needs the inputs as drawn.
  return drawn.get(task.argsInfo, task.seed).map((a) => a.slice() as AnyTypedArray);
}

async function measureOnHost(task: MeasureTask): Promise<MeasureResult> {
  const { artifact } = task;
  const host = artifact.host;
  if (host === undefined) throw new Error(`${artifact.name}: the artifact has no compiled library (build CPU candidates with the CpuBuilder)`);
  const scalar = host.params.find((p) => p.kind === "scalar");
  if (scalar !== undefined) throw new Error(`${artifact.name}: the function takes the scalar ${scalar.name}; the runner only passes tensors`);
  if (host.params.length !== task.argsInfo.length)
    throw new Error(`${artifact.name}: the library takes ${host.params.length} arguments, the workload has ${task.argsInfo.length}`);
  const args = argumentsOf(task);
  host.params.forEach((p, k) => {
    if (p.elements !== args[k]!.length)
      throw new Error(`${artifact.name}: parameter ${p.name} has ${p.elements} elements, argument ${k} has ${args[k]!.length}`);
  });
  const library = openHostLibrary(host.libraryPath);
  try {
    const call = (): void => {
      const status = library.call(host.packedSymbol, args);
      if (status !== 0) throw new Error(`${artifact.name}: the compiled function returned status ${status} (a heap allocation failed)`);
    };
    let outputs: MeasureResult["outputs"];
    if (task.returnOutputs) {
      const t0 = performance.now();
      call();
      const checkedMs = performance.now() - t0;
      outputs = args.map((a) => digestOf(a, task.outputSamples));
      if (task.stopAboveMsPerRun !== undefined && checkedMs > task.stopAboveMsPerRun) return { runSecs: [checkedMs / 1000], outputs };
    }
    const { number, repeat, minRepeatMs } = task.evaluator;
    const timing = await timeEvaluator(
      { warmup: call, timeBatch: (n) => library.timeCalls(host.packedSymbol, args, n) },
      {
        number,
        repeat,
        minRepeatMs,
        warm: task.returnOutputs,
        ...(task.stopAboveMsPerRun === undefined ? {} : { stopAboveMsPerRun: task.stopAboveMsPerRun }),
        ...(task.headroom === undefined ? {} : { headroom: task.headroom }),
      },
    );
    return { runSecs: timing.samples.map((ms) => ms / 1000), ...(outputs === undefined ? {} : { outputs }) };
  } finally {
    // The child measures many candidates: their workspaces go with them.
    if (host.releaseSymbol !== undefined) library.call(host.releaseSymbol, []);
    library.close();
  }
}

export const backend: MeasureBackend = {
  name: "cpu",
  measure: measureOnHost,
};
