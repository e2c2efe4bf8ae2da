/**
 * A runner (TVM's `Runner`): measures built candidates. A candidate that faults or hangs gets an
 * error result and the batch goes on (the GPU runner measures in a separate process for that).
 */
import type { PrimFunc } from "@tessera/ir";
import type { ArgInfo } from "../arg-info.js";
import type { BuiltArtifact } from "./builder.js";

export interface RunnerInput {
  readonly artifact: BuiltArtifact;
  readonly argsInfo: readonly ArgInfo[];
  /** The unscheduled workload the candidate implements (for checkers that compute a reference). */
  readonly workload?: PrimFunc;
}

export type RunnerResult =
  /** Seconds per run, one entry per repeat (TVM's `run_secs`). */
  { readonly ok: true; readonly runSecs: readonly number[] } | { readonly ok: false; readonly error: string };

/** TVM's `EvaluatorConfig` defaults: number=3, repeat=1, min_repeat_ms=100. */
export interface EvaluatorConfig {
  readonly number: number;
  readonly repeat: number;
  readonly minRepeatMs: number;
}

export const DEFAULT_EVALUATOR_CONFIG: EvaluatorConfig = { number: 3, repeat: 1, minRepeatMs: 100 };

export interface Runner {
  readonly name: string;
  run(inputs: readonly RunnerInput[]): Promise<RunnerResult[]>;
  dispose?(): Promise<void>;
}

/** TVM's latency of a result: the mean of run_secs; 1e10 s for a failed run. */
export const FAILED_RUN_SECS = 1e10;

export function meanRunSecs(result: RunnerResult): number {
  if (!result.ok || result.runSecs.length === 0) return FAILED_RUN_SECS;
  return result.runSecs.reduce((a, b) => a + b, 0) / result.runSecs.length;
}
