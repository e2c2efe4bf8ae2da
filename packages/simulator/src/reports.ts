/** What a simulation reports besides its results in the argument arrays. */
import type { Dim3 } from "./dims.js";
import type { MemoryScope, RaceKind } from "./race-shadow.js";

export type { MemoryScope, RaceKind } from "./race-shadow.js";

/**
 * Two threads accessed an element with nothing ordering the accesses, at least one writing: in
 * shared or global memory, two threads of one block in one barrier interval; in global memory
 * also two threads of different blocks (which a launch never orders).
 */
export interface RaceReport {
  readonly kernel: string;
  readonly kind: RaceKind;
  readonly scope: MemoryScope;
  /** The shared allocation (e.g. `A_shared`) or global buffer (e.g. `D`). */
  readonly buffer: string;
  /** Element index in the allocation or buffer. */
  readonly index: number;
  /** The block of the second access. */
  readonly block: Dim3;
  /** The block of the first access: `block`, unless two blocks raced on global memory. */
  readonly firstBlock: Dim3;
  /** The thread whose access came first in the simulation. */
  readonly firstThread: Dim3;
  /** The thread whose access completed the conflict. */
  readonly secondThread: Dim3;
  /** The second access as written in the IR. */
  readonly access: string;
  /** Barrier interval of the second access in its block (0: before the first barrier). */
  readonly interval: number;
  readonly message: string;
}

/** Races counted per memory scope. */
export type RaceCounts = Readonly<Record<MemoryScope, number>>;

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

/**
 * Shared-memory traffic of warp-level accesses under the bank model (see bank-model.ts). The
 * Nsight Compute counterparts: `instructions` ~ smsp__sass_inst_executed_op_shared_ld/st,
 * `wavefronts` ~ l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/st, `conflicts` ~
 * l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/st.
 */
export interface SharedAccessCounts {
  /** Warp-level instructions executed. */
  readonly instructions: number;
  readonly wavefronts: number;
  /** Wavefronts the same accesses would need without bank conflicts. */
  readonly idealWavefronts: number;
  /** `wavefronts - idealWavefronts`. */
  readonly conflicts: number;
  /** The largest n of an n-way conflict in one instruction (1: conflict-free; 0: never executed). */
  readonly worstWay: number;
}

/** One static shared-memory access site, named as race reports name sites. */
export interface BankConflictSite extends SharedAccessCounts {
  readonly kernel: string;
  readonly buffer: string;
  readonly access: "load" | "store";
  /** The access as written in the IR, e.g. `A_shared[threadIdx_x * 64 + k]`. */
  readonly text: string;
  /** Bytes per thread and instruction (4 for float32, 16 for a float4 access). */
  readonly widthBytes: number;
}

export interface BankConflictReport {
  /** Every shared access site, in kernel and program order. */
  readonly sites: readonly BankConflictSite[];
  readonly loads: SharedAccessCounts;
  readonly stores: SharedAccessCounts;
  readonly total: SharedAccessCounts;
}

export interface KernelReport {
  readonly kernel: string;
  readonly grid: Dim3;
  readonly block: Dim3;
  /** Thread blocks run: the grid's volume, or the number `SimulationOptions.blocks` selected. */
  readonly blocksSimulated: number;
  /** Barrier intervals each block went through (barriers crossed + 1). */
  readonly intervalsPerBlock: number;
  /** Static shared memory per block, in bytes (from the simulated allocations). */
  readonly sharedBytes: number;
  /** Wall time of the simulation of this kernel (compilation included), in milliseconds. */
  readonly timeMs: number;
  /** The first races found (at most `maxReports`); `raceCount` counts all. */
  readonly races: readonly RaceReport[];
  readonly raceCount: number;
  readonly raceCounts: RaceCounts;
  readonly uninitializedReads: readonly UninitializedRead[];
  readonly uninitializedReadCount: number;
  /** Shared-memory bank conflicts over all blocks (with `bankConflicts: true` only). */
  readonly bankConflicts?: BankConflictReport;
}

export interface SimulationReport {
  readonly module: string;
  readonly kernels: readonly KernelReport[];
  readonly timeMs: number;
  /** Races of every kernel (the first `maxReports` of each). */
  readonly races: readonly RaceReport[];
  readonly raceCount: number;
  readonly raceCounts: RaceCounts;
  readonly uninitializedReads: readonly UninitializedRead[];
  readonly uninitializedReadCount: number;
  /** Bank conflicts of every kernel (with `bankConflicts: true` only). */
  readonly bankConflicts?: BankConflictReport;
}
