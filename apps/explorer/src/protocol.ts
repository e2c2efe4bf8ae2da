/** What the page sends the schedule worker and what it answers: plain data (structured clone). */
import type { AdapterLimits, WgslModule } from "@tessera/codegen";
import type { TypedArray } from "@tessera/ir";
import type { BankConflictSite, ComparisonReport } from "@tessera/simulator";

/** The workloads a schedule can be applied to (see workloads.ts). */
export type WorkloadName = "gemm-relu-add" | "vector-add" | "matmul" | "transpose";

export interface RunRequest {
  /** The student's TypeScript module. */
  readonly code: string;
  /** What `schedule(sch)` is applied to; a module exporting `manualSchedule(size)` builds its own. */
  readonly workload: WorkloadName;
  /** The limits of the page's WebGPU adapter, which the WGSL is built for; WebGPU's defaults when there is none. */
  readonly gpuLimits?: AdapterLimits | undefined;
}

/** The IR after one primitive of the student's code. */
export interface Step {
  /** The primitive, e.g. `split`. */
  readonly primitive: string;
  /** 1-based line of the student's code that called it (undefined for the initial IR). */
  readonly line: number | undefined;
  readonly script: string;
}

export type LoopTreeNode =
  | {
      readonly kind: "loop";
      readonly name: string;
      readonly extent: string;
      readonly forKind: string;
      readonly binding: string | undefined;
      readonly children: readonly LoopTreeNode[];
    }
  | { readonly kind: "block"; readonly name: string; readonly children: readonly LoopTreeNode[] };

/** Which thread block and thread write each element of the output (row-major), with the launch shape. */
export interface Tiling {
  readonly buffer: string;
  readonly shape: readonly number[];
  readonly grid: readonly [number, number, number];
  readonly block: readonly [number, number, number];
  /** Per element: the writing block's number (x + gx·(y + gy·z)); NO_WRITER, or SEVERAL_WRITERS. */
  readonly blockOf: Int32Array;
  /** Per element: the writing thread's number in its block (x + bx·(y + by·z)); as blockOf otherwise. */
  readonly threadOf: Int32Array;
}

export const NO_WRITER = -1;
export const SEVERAL_WRITERS = -2;

/** The comparison with the unscheduled function, as the simulator reports it, in plain data. */
export interface Verdict extends Pick<ComparisonReport, "passed" | "mismatchCount"> {
  readonly raceCount: number;
  readonly races: readonly string[];
  /** The buffers of those races (e.g. `A_shared`), to find the primitive that made them. */
  readonly raceBuffers: readonly string[];
  /** An out-of-bounds access or a barrier divergence that stopped the simulation. */
  readonly fault: string | undefined;
}

/** A shared-memory access site of the simulator's bank model (plain data, as the worker sends it). */
export type BankConflictRow = BankConflictSite;

/** The student's code failed: the error, and the line of the student's code it came from. */
export interface StudentError {
  readonly name: string;
  readonly message: string;
  readonly line: number | undefined;
}

/** One analysis of the scheduled function, or why it could not be made. */
export type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

export interface RunResult {
  readonly steps: readonly Step[];
  readonly error: StudentError | undefined;
  readonly loopTree: Outcome<LoopTreeNode>;
  readonly cuda: Outcome<string>;
  readonly verdict: Outcome<Verdict>;
  readonly bankConflicts: Outcome<readonly BankConflictRow[]>;
  readonly tiling: Outcome<Tiling>;
  /** What the page runs on WebGPU (worker/gpu-job.ts), or why there is nothing to run. */
  readonly gpu: Outcome<GpuJob>;
  /** The scheduled function's WGSL, or why there is none (e.g. the ShaderCodegenError). */
  readonly wgsl: Outcome<string>;
  /** What the student's code printed (console.log, sch.show()). */
  readonly printed: readonly string[];
}

/** The student's kernel and the unscheduled baseline for WebGPU, with their inputs: the page runs them. */
export interface GpuJob {
  readonly scheduled: Outcome<WgslModule>;
  /** The unscheduled function bound one thread per element (worker/baseline.ts). */
  readonly baseline: Outcome<WgslModule>;
  /** Every buffer argument, seeded random, in parameter order. */
  readonly inputs: readonly TypedArray[];
  /** Every buffer after the JS executor ran the unscheduled function, or why it was not run. */
  readonly expected: Outcome<readonly TypedArray[]>;
}

export type WorkerReply = { readonly kind: "result"; readonly result: RunResult } | { readonly kind: "crash"; readonly message: string };
