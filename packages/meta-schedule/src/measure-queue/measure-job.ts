/**
 * The "measure" job: one built candidate, carried whole so that a worker on another machine can
 * measure it: the artifact (CUDA source, kernels' launch metadata, host plan, the compiled image
 * as base64), the arguments, the target, and for the simulated runner the scheduled function as
 * TVMScript (the lowered module holds IR objects that do not cross processes; the worker lowers
 * the script again). `runMeasureJob` is the worker's side: the local runner on its GPU, or the
 * simulated runner without one.
 */
import type { CudaTarget } from "@tessera/codegen";
import { lower } from "@tessera/codegen";
import { parsePrimFunc, printTVMScript } from "@tessera/ir";
import { z } from "zod";
import { ArgInfoJSONSchema, argInfoFromJSON, argInfoToJSON } from "../arg-info.js";
import type { BuiltArtifact, HostPlan } from "../interfaces/builder.js";
import { cuda } from "@tessera/runtime";
import { CompileStep } from "../builder/compile-step.js";
import { LocalRunner } from "../runner/local-runner.js";
import type { RunnerInput } from "../interfaces/runner.js";
import { SimulatedRunner } from "../runner/simulated-runner.js";
import type { RunnerChecker } from "../runner/checker.js";
import type { OutputDigest } from "../runner/output-digest.js";
import { type EncodedDigest, EncodedDigestSchema, encodeDigest } from "./digest-json.js";

/** The longest measurement a job may ask for: a day. */
export const MAX_MEASURE_TIMEOUT_SEC = 24 * 3600;

/** How the worker measures: the same options as the local runners, as plain data. */
export const RemoteRunnerSpecSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("simulated"),
    repeat: z.number().int().positive().optional(),
    noise: z.object({ relative: z.number().nonnegative(), seed: z.number().int().optional() }).optional(),
    /** Check the candidate's numerics in the simulator (see SimulatedRunnerOptions). */
    checkNumerics: z.boolean().optional(),
  }),
  z.object({
    kind: z.literal("local"),
    evaluator: z
      .object({ number: z.number().int().positive(), repeat: z.number().int().positive(), minRepeatMs: z.number().nonnegative() })
      .partial()
      .optional(),
    // Capped so that the runner's timer (milliseconds) stays below Node's largest, 2^31 - 1 ms.
    timeoutSec: z.number().positive().max(MAX_MEASURE_TIMEOUT_SEC).optional(),
    seed: z.number().int().optional(),
    /** Send back the digest of every argument after a run, for the tuning side's check (QueueRunnerOptions.checker). */
    returnOutputs: z.boolean().optional(),
  }),
]);

export type RemoteRunnerSpec = z.infer<typeof RemoteRunnerSpecSchema>;

export const MeasureJobPayloadSchema = z.object({
  runner: RemoteRunnerSpecSchema,
  target: z.looseObject({ name: z.string(), kind: z.literal("cuda"), arch: z.string() }),
  artifact: z.object({
    name: z.string(),
    source: z.string(),
    kernels: z.array(z.looseObject({})),
    imageBase64: z.string().optional(),
    arch: z.string().optional(),
    /** The architecture-specific target the source needs (sm_90a for wgmma), for a worker that compiles it. */
    requiredArch: z.string().optional(),
    hostPlan: z.looseObject({}).optional(),
  }),
  /** The scheduled function as TVMScript (the simulated runner lowers it again). */
  scheduled: z.string().optional(),
  argsInfo: z.array(ArgInfoJSONSchema),
});

export type MeasureJobPayload = z.infer<typeof MeasureJobPayloadSchema>;

/** A runner result, with the arguments' digests when the job asked for them (`returnOutputs`). */
export type MeasureJobResult =
  | { readonly ok: true; readonly runSecs: readonly number[]; readonly outputs?: readonly EncodedDigest[] }
  | { readonly ok: false; readonly error: string };

export const MeasureJobResultSchema: z.ZodType<MeasureJobResult> = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), runSecs: z.array(z.number()), outputs: z.array(EncodedDigestSchema).optional() }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);

/** The job for one runner input; the simulated runner needs the artifact's lowered module. */
export function measureJobPayload(input: RunnerInput, runner: RemoteRunnerSpec): MeasureJobPayload {
  const { artifact } = input;
  const lowered = artifact.lowered;
  if (runner.kind === "simulated" && lowered === undefined) {
    throw new RangeError(
      `QueueRunner: ${artifact.name} has no lowered module, which the simulated runner needs (build with LocalBuilder's keepLowered, the default)`,
    );
  }
  const target = lowered?.target;
  return {
    runner,
    target: (target ?? { name: "cuda", kind: "cuda", arch: artifact.arch ?? "sm_75" }) as MeasureJobPayload["target"],
    artifact: {
      name: artifact.name,
      source: artifact.source,
      kernels: artifact.kernels as unknown as MeasureJobPayload["artifact"]["kernels"],
      ...(artifact.image === undefined ? {} : { imageBase64: Buffer.from(artifact.image).toString("base64") }),
      ...(artifact.arch === undefined ? {} : { arch: artifact.arch }),
      ...(artifact.requiredArch === undefined ? {} : { requiredArch: artifact.requiredArch }),
      ...(artifact.hostPlan === undefined ? {} : { hostPlan: artifact.hostPlan as unknown as Record<string, unknown> }),
    },
    ...(lowered === undefined ? {} : { scheduled: printTVMScript(lowered.source) }),
    argsInfo: input.argsInfo.map(argInfoToJSON),
  };
}

/** The runner input a job describes, as the worker rebuilds it. */
export function runnerInputOf(payload: MeasureJobPayload): RunnerInput {
  const target = payload.target as unknown as CudaTarget;
  const artifact: BuiltArtifact = {
    name: payload.artifact.name,
    source: payload.artifact.source,
    kernels: payload.artifact.kernels as unknown as BuiltArtifact["kernels"],
    ...(payload.artifact.imageBase64 === undefined ? {} : { image: new Uint8Array(Buffer.from(payload.artifact.imageBase64, "base64")) }),
    ...(payload.artifact.arch === undefined ? {} : { arch: payload.artifact.arch }),
    ...(payload.artifact.requiredArch === undefined ? {} : { requiredArch: payload.artifact.requiredArch }),
    ...(payload.artifact.hostPlan === undefined ? {} : { hostPlan: payload.artifact.hostPlan as unknown as HostPlan }),
    ...(payload.scheduled === undefined ? {} : { lowered: lower(parsePrimFunc(payload.scheduled), target) }),
  };
  return { artifact, argsInfo: payload.argsInfo.map(argInfoFromJSON) };
}

/**
 * The worker's runners, made once per setting and reused across jobs (the local runner keeps its
 * child process; candidates are measured one at a time per worker, never overlapping on its GPU).
 */
export class MeasureJobRunners {
  readonly #local = new Map<string, LocalRunner>();
  #tail: Promise<unknown> = Promise.resolve();
  readonly #compile = new CompileStep({ mode: "device" });
  readonly #turns: <T>(work: () => Promise<T>) => Promise<T>;

  readonly #backendModule: string | undefined;

  /**
   * `turns`: a lock shared with the other processes on this GPU (default: none besides this process's order).
   * `backendModule`: the local runner's GPU backend in its child process (tests: a fake one).
   */
  constructor(turns: <T>(work: () => Promise<T>) => Promise<T> = (work) => work(), backendModule?: string) {
    this.#turns = turns;
    this.#backendModule = backendModule;
  }

  async run(payload: MeasureJobPayload): Promise<MeasureJobResult> {
    let input: RunnerInput;
    try {
      input = runnerInputOf(payload);
    } catch (err) {
      return { ok: false, error: `the worker could not rebuild the candidate: ${err instanceof Error ? err.message : String(err)}` };
    }
    const spec = payload.runner;
    if (spec.kind === "simulated") {
      const runner = new SimulatedRunner({
        ...(spec.repeat === undefined ? {} : { repeat: spec.repeat }),
        ...(spec.noise === undefined ? {} : { noise: spec.noise }),
        ...(spec.checkNumerics === undefined ? {} : { checkNumerics: spec.checkNumerics }),
      });
      return (await runner.run([input]))[0] ?? { ok: false, error: "the simulated runner returned nothing" };
    }
    if (input.artifact.image === undefined && cuda.available()) {
      // Built where there is no GPU (the tuning machine): compiled here, for this worker's GPU.
      try {
        const compiled = await this.#compile.compile(
          input.artifact.source,
          payload.target as unknown as CudaTarget,
          input.artifact.name,
          input.artifact.requiredArch,
        );
        if (compiled !== undefined) input = { ...input, artifact: { ...input.artifact, image: compiled.image, arch: compiled.arch } };
      } catch (err) {
        return { ok: false, error: `the worker could not compile the candidate: ${err instanceof Error ? err.message : String(err)}` };
      }
    }
    const returnOutputs = spec.returnOutputs === true;
    const key = JSON.stringify([spec.evaluator, spec.timeoutSec, spec.seed, returnOutputs]);
    let runner = this.#local.get(key);
    if (runner === undefined) {
      runner = new LocalRunner({
        ...(spec.evaluator === undefined ? {} : { evaluator: spec.evaluator }),
        ...(spec.timeoutSec === undefined ? {} : { timeoutSec: spec.timeoutSec }),
        ...(spec.seed === undefined ? {} : { seed: spec.seed }),
        ...(returnOutputs ? { checker: this.#collector } : {}),
        ...(this.#backendModule === undefined ? {} : { backendModule: this.#backendModule }),
      });
      this.#local.set(key, runner);
    }
    const local = runner;
    const ran = input;
    // One measurement at a time on this worker's GPU, whatever its concurrency.
    const turn = this.#tail.then(() => this.#turns(() => local.run([ran])));
    this.#tail = turn.catch(() => undefined);
    const result = (await turn)[0] ?? { ok: false, error: "the local runner returned nothing" };
    if (!result.ok || !returnOutputs) return result;
    const outputs = this.#collected.get(ran);
    if (outputs === undefined) return { ok: false, error: "the local runner sent back no outputs to check" };
    return { ...result, outputs: outputs.map(encodeDigest) };
  }

  /** The outputs of each run, by its input, for the tuning side to check (it has the reference). */
  readonly #collected = new WeakMap<RunnerInput, readonly OutputDigest[]>();
  readonly #collector: RunnerChecker = {
    name: "outputs-to-tuner",
    check: (outputs, _inputs, input) => {
      this.#collected.set(input, outputs);
      return undefined;
    },
  };

  async dispose(): Promise<void> {
    await Promise.all([...this.#local.values()].map((r) => r.dispose()));
    this.#local.clear();
  }
}
