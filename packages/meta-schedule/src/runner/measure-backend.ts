/**
 * What the runner's child process measures with. The default backend times the candidate on the
 * GPU (cuda-backend.ts); tests inject a fake one (a module exporting `backend`) through
 * `LocalRunnerOptions.backendModule`, so that the process isolation is tested without a GPU.
 */
import type { ArgInfo } from "../arg-info.js";
import type { BuiltArtifact } from "../interfaces/builder.js";
import type { OutputDigest, OutputSamples } from "./output-digest.js";
import type { EvaluatorConfig } from "../interfaces/runner.js";

/** One candidate to measure, as it crosses to the child (no lowered module). */
export interface MeasureTask {
  readonly artifact: Omit<BuiltArtifact, "lowered">;
  readonly argsInfo: readonly ArgInfo[];
  readonly evaluator: EvaluatorConfig;
  /** Seed of the random arguments (`randomArgsFor`). */
  readonly seed: number;
  /** Also run once on the random arguments and send every argument's digest back (for a correctness check). */
  readonly returnOutputs: boolean;
  /** Elements per argument in that digest (`digestOf`). */
  readonly outputSamples: OutputSamples;
  readonly deviceOrdinal: number;
  /** Runs slower than this (ms each) need no more precision: their first sample is their time (`stopAboveMsPerRun`). */
  readonly stopAboveMsPerRun?: number;
  /** A growing sample aims at minRepeatMs × this (timeEvaluator's `headroom`; 1 is TVM's). */
  readonly headroom?: number;
}

export interface MeasureResult {
  /** Seconds per run, one per repeat. */
  readonly runSecs: readonly number[];
  /** The arguments' digests after one run, when asked for. */
  readonly outputs?: readonly OutputDigest[];
  /** Where the child's time went, in milliseconds by step (e.g. load, upload, check, timing). */
  readonly stepsMs?: Readonly<Record<string, number>>;
  /** Within the timing step: the GPU's time between the events of the timed runs (ms), and how many runs. */
  readonly timed?: { readonly gpuMs: number; readonly runs: number };
}

export interface MeasureBackend {
  readonly name: string;
  measure(task: MeasureTask): Promise<MeasureResult>;
}

/**
 * Several candidates measured one after another by one message to the child (LocalRunner's
 * `batch`), so that the GPU does not wait for the tuning process to read each result and send the
 * next candidate. A candidate whose backend throws gets its error; a fatal error fails the batch.
 */
export interface MeasureBatch {
  readonly batch: readonly MeasureTask[];
}

export type MeasureBatchReply = readonly ({ readonly ok: true; readonly result: MeasureResult } | { readonly ok: false; readonly error: string })[];

export function isMeasureBatch(task: MeasureTask | MeasureBatch): task is MeasureBatch {
  return Array.isArray((task as { batch?: unknown }).batch);
}
