export { codegenC, buildC, type CModule, type CParam } from "./module.js";
export { STACK_LIMIT_BYTES, PARALLEL_MIN_WORK, estimatedWork, type LoopSummary } from "./stmt.js";
