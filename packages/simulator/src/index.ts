/**
 * @tessera/simulator — runs lowered device kernels on the CPU with GPU semantics: per-block shared
 * memory, per-thread registers, real barriers, out-of-bounds reports with the thread that failed,
 * a data-race detector for shared and global memory, and (on request) a model of shared-memory bank conflicts.
 *
 * Named exports only: the kernel compiler, launch helpers and store slicing stay internal.
 */
export { type Dim3, formatDim3 } from "./dims.js";
export { BarrierDivergenceError, OutOfBoundsError, SimulationError } from "./errors.js";
export { FragmentMisuseError, WarpDivergenceError } from "./wmma/warp-collectives.js";
export type { BankConflictReport, BankConflictSite, KernelReport, RaceCounts, RaceReport, SharedAccessCounts, SimulationReport } from "./reports.js";
export { type WarpAccessCost, WavefrontCounter, warpAccessCost } from "./bank-model.js";
export type { SimulationOptions } from "./simulate-kernel.js";
export { simulate } from "./simulate.js";
export { type CompareOptions, type ComparisonReport, compareWithReference } from "./compare.js";
export { describeRaceCounts, formatBankConflicts, formatComparison, formatSimulationReport } from "./format.js";
export { type StoreCoverage, moduleStoreCoverage } from "./store-coverage.js";
