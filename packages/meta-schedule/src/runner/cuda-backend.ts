/**
 * The GPU measuring backend of the runner's child process: loads the candidate's image, binds
 * random arguments and the host plan's workspaces, runs once for the checker when asked, then
 * times all kernels together with TVM's time_evaluator semantics (`timeEvaluator`). A CUDA error
 * leaves the context unusable, so it is fatal: the pool starts a fresh child for the next one.
 */
import {
  type AnyTypedArray,
  CudaError,
  CudaModule,
  LaunchSequence,
  NDArray,
  type KernelArg,
  cuda,
  encodeTensorMap,
  isDType,
  isHalfDType,
  timeEvaluator,
} from "@tessera/runtime";
import { FatalTaskError } from "../isolation/serve.js";
import type { MeasureBackend, MeasureResult, MeasureTask } from "./measure-backend.js";
import { digestOf } from "./output-digest.js";
import { RandomArgsCache } from "./random-args.js";
import { StepClock } from "./step-clock.js";

/** Host arrays are only uploaded from, never written. */
const drawn = new RandomArgsCache();

function hostArguments(task: MeasureTask): readonly AnyTypedArray[] {
  return drawn.get(task.argsInfo, task.seed);
}

function measureOnDevice(task: MeasureTask): Promise<MeasureResult> {
  const { artifact } = task;
  if (artifact.image === undefined)
    throw new Error(`${artifact.name}: the artifact has no compiled image (build it where CUDA is available, LocalBuilder compile: "device")`);
  const plan = artifact.hostPlan;
  if (plan === undefined) throw new Error(`${artifact.name}: the artifact has no host plan (build it with LocalBuilder)`);
  const owned: { dispose(): void }[] = [];
  const steps = new StepClock();
  const module = new CudaModule(artifact.image, task.deviceOrdinal);
  owned.push(module);
  steps.lap("load");
  const run = async (): Promise<MeasureResult> => {
    const kernels = artifact.kernels.map((m) => module.getKernel(m.name, m));
    const host = hostArguments(task);
    const args = host.map((data, k) => {
      const info = task.argsInfo[k]!;
      const a = NDArray.from(data, { shape: info.shape, dtype: info.dtype as never, device: task.deviceOrdinal });
      owned.push(a);
      return a;
    });
    const workspaces = plan.workspaces.map((w) => {
      if (!isDType(w.dtype)) throw new Error(`${artifact.name}: workspace ${w.name} has dtype ${w.dtype}, which device arrays cannot hold`);
      const a = NDArray.empty([w.elements], w.dtype, task.deviceOrdinal);
      owned.push(a);
      return a;
    });
    const launches = kernels.map((kernel, i) =>
      kernel.bind(
        undefined,
        (plan.kernelArguments[i] ?? []).flatMap((source): KernelArg[] => {
          if (source.kind === "scalar")
            throw new Error(`${artifact.name}: kernel ${kernel.name} takes the scalar ${source.name}; the runner only passes tensors`);
          const value = source.kind === "param" ? args[source.index] : workspaces[source.index];
          if (value === undefined)
            throw new Error(`${artifact.name}: kernel ${kernel.name} needs ${source.kind} ${source.index}, which the arguments do not have`);
          // A TMA-loaded buffer: its tensor map, encoded for this array, follows the pointer.
          const name = `${source.kind} ${source.index}`;
          return source.tensorMap === undefined ? [value] : [value, encodeTensorMap(value.ptr, value.dtype, source.tensorMap, name, kernel.name)];
        }),
      ),
    );
    const sequence = new LaunchSequence(launches);
    steps.lap("upload");
    let outputs: MeasureResult["outputs"];
    if (task.returnOutputs) {
      sequence.run();
      // 16-bit floats are digested as their values, not their bit patterns.
      outputs = args.map((a) => digestOf(isHalfDType(a.dtype) ? a.toFloat32Array() : a.toTypedArray(), task.outputSamples));
      steps.lap("check");
    }
    const { number, repeat, minRepeatMs } = task.evaluator;
    const stop = task.stopAboveMsPerRun === undefined ? {} : { stopAboveMsPerRun: task.stopAboveMsPerRun };
    // The checked run just ran the same launches: it was the warm-up.
    const headroom = task.headroom === undefined ? {} : { headroom: task.headroom };
    const timing = await timeEvaluator(sequence, { number, repeat, minRepeatMs, warm: task.returnOutputs, ...stop, ...headroom });
    steps.lap("timing");
    const timed = { gpuMs: timing.samples.reduce((sum, ms) => sum + ms * timing.number, 0), runs: timing.number * timing.samples.length };
    return { runSecs: timing.samples.map((ms) => ms / 1000), ...(outputs === undefined ? {} : { outputs }), stepsMs: steps.laps, timed };
  };
  return run().finally(() => {
    for (const x of owned.reverse()) {
      try {
        x.dispose();
      } catch {
        // After a fault the context is gone; the process is replaced anyway.
      }
    }
  });
}

export const backend: MeasureBackend = {
  name: "cuda",
  async measure(task) {
    if (!cuda.available()) throw new FatalTaskError(`no CUDA device in the runner's process: ${cuda.unavailableReason() ?? "unknown reason"}`);
    try {
      return await measureOnDevice(task);
    } catch (err) {
      if (err instanceof CudaError) throw new FatalTaskError(`${err.message}`);
      throw err;
    }
  },
};
