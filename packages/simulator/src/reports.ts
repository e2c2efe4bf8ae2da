/** What a simulation reports besides its results in the argument arrays. */
import type { Dim3 } from "./dims.js";
import type { RaceKind } from "./shared-shadow.js";

export type { RaceKind } from "./shared-shadow.js";

/** Two threads of one block accessed a shared element in one barrier interval, at least one writing. */
export interface RaceReport {
  readonly kernel: string;
  readonly kind: RaceKind;
  /** The shared allocation (e.g. `A_shared`). */
  readonly buffer: string;
  /** Element index in the allocation. */
  readonly index: number;
  readonly block: Dim3;
  /** The thread whose access came first in the simulation. */
  readonly firstThread: Dim3;
  /** The thread whose access completed the conflict. */
  readonly secondThread: Dim3;
  /** The second access as written in the IR. */
  readonly access: string;
  /** Barrier interval in the block (0: before the first barrier). */
  readonly interval: number;
  readonly message: string;
}

/** A thread read a shared element that no thread of its block had written. */
export interface UninitializedRead {
  readonly kernel: string;
  readonly buffer: string;
  readonly index: number;
  readonly block: Dim3;
  readonly thread: Dim3;
  readonly access: string;
  readonly message: string;
}

export interface KernelReport {
  readonly kernel: string;
  readonly grid: Dim3;
  readonly block: Dim3;
  /** Barrier intervals each block went through (barriers crossed + 1). */
  readonly intervalsPerBlock: number;
  /** Static shared memory per block, in bytes (from the simulated allocations). */
  readonly sharedBytes: number;
  /** Wall time of the simulation of this kernel (compilation included), in milliseconds. */
  readonly timeMs: number;
  /** The first races found (at most `maxReports`); `raceCount` counts all. */
  readonly races: readonly RaceReport[];
  readonly raceCount: number;
  readonly uninitializedReads: readonly UninitializedRead[];
  readonly uninitializedReadCount: number;
}

export interface SimulationReport {
  readonly module: string;
  readonly kernels: readonly KernelReport[];
  readonly timeMs: number;
  /** Races of every kernel (the first `maxReports` of each). */
  readonly races: readonly RaceReport[];
  readonly raceCount: number;
  readonly uninitializedReads: readonly UninitializedRead[];
  readonly uninitializedReadCount: number;
}
