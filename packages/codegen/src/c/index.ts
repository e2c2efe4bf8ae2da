export { type CpuTarget, cpuTarget, isCpuTarget, isCpuTargetName } from "./target.js";
export { CpuLoweringError } from "./errors.js";
export { lowerForCpu, CPU_LOWERING_PASSES, type CpuLoweredFunc, type CpuLowerOptions } from "./lower.js";
export { codegenC, buildC, type CModule, type CParam } from "./module.js";
export { STACK_LIMIT_BYTES, PARALLEL_MIN_WORK, estimatedWork, type LoopSummary } from "./stmt.js";
