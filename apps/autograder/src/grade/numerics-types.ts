/**
 * What a numerics run and a timing produce, whichever backend ran them (the GPU at full size, or
 * the CPU simulator on a sample of the full-size kernel's thread blocks). Shared by the grader,
 * the GPU backend and the reports.
 */
import type { Schedule } from "@tessera/schedule";
import type { GpuFaultReport } from "../gpu/fault.js";
import type { Numerics, Timing } from "../manifest/index.js";

/** One round of fresh random inputs. */
export interface NumericsRound {
  readonly seed: number;
  readonly elements: number;
  /** Outputs outside atol + rtol·|reference| (NaN counts as a mismatch). */
  readonly mismatches: number;
  /** Outputs still holding the poison value (never written). */
  readonly unwritten: number;
  readonly maxAbsError: number;
  /** "D[3, 17] = 0.52 but the reference is 0.49" for the first mismatch. */
  readonly firstMismatch?: string;
}

/** What a sampled check of the full-size kernel covered (sampled-numerics.ts). */
export interface NumericsSample {
  /** Thread blocks simulated over all rounds (a block run in several rounds counts once each). */
  readonly blocks: number;
  /** Distinct thread blocks among them (at most `gridBlocks`: a small grid runs whole in every round). */
  readonly distinctBlocks: number;
  /** Thread blocks of the kernel's grid. */
  readonly gridBlocks: number;
  /** Output elements compared over all rounds. */
  readonly elements: number;
  readonly seconds: number;
  /**
   * Whether the whole kernel writes every element of D, each from one thread (output-coverage.ts):
   * what was checked, or why it could not be.
   */
  readonly coverage?: string;
}

export interface NumericsOutcome {
  readonly passed: boolean;
  readonly backend: "gpu" | "simulator";
  /** "NVIDIA H200", or "CPU simulator (nvidia/tesla-t4 limits)". */
  readonly device: string;
  /** The size n the schedule ran at. */
  readonly size: number;
  /** That size as messages write it: the workload's iteration domain (`2048×2048×2048`, `512×512`; see workload-size.ts). */
  readonly shape: string;
  readonly rounds: readonly NumericsRound[];
  /** Why the schedule could not be built or run at all (lowering, GPU limits, out-of-bounds access). */
  readonly error?: string;
  /** In the simulator at full size: the thread blocks checked (rounds then count sampled elements only). */
  readonly sample?: NumericsSample;
  /** What the student should know besides pass or fail (e.g. a pre-check that did not count). */
  readonly notes?: readonly string[];
  /** The GPU faulted, hung or crashed running the schedule (`error` says so in the student's terms). */
  readonly fault?: GpuFaultReport;
}

export interface NumericsRequest {
  /** The assignment (binding name) whose workload the schedule computes. */
  readonly assignment: string;
  /** The trusted replay of the schedule at `settings.sizes.full`. */
  readonly schedule: Schedule;
  readonly settings: Numerics;
  /** Seed of the first round; round r uses seed + r. */
  readonly seed: number;
}

export interface TimingOutcome {
  /** Mean over the repeats, in milliseconds per run. */
  readonly meanMs: number;
  /** Median and extremes of the repeats, in milliseconds per run. */
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  /** Population standard deviation of the repeats, in milliseconds per run. */
  readonly stdMs: number;
  readonly repeats: number;
  /** Kernel runs per repeat (after min_repeat_ms grew it). */
  readonly number: number;
  readonly device: string;
}

/** A GPU the grader can check and time schedules on. */
export interface GpuBackend {
  /** The driver's device name, e.g. "NVIDIA H200" or "Tesla T4". */
  readonly name: string;
  /** The manifest's key for this GPU ("t4"), when it is one the manifest knows by name. */
  readonly key: string | undefined;
  /** Never throws for a problem of the schedule: a fault is an outcome with `fault` and `error`. */
  numerics(req: NumericsRequest): Promise<NumericsOutcome>;
  /** Throws an Error saying why (a fault in the student's terms) when the schedule cannot be timed. */
  time(schedule: Schedule, timing: Timing, assignment: string): Promise<TimingOutcome>;
  dispose(): void;
}
