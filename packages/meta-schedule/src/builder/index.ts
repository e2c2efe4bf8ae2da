export * from "../interfaces/builder.js";
export { CpuBuilder, type CpuBuilderOptions } from "./cpu-builder.js";
export { LocalBuilder, buildWorkerEntry, DEFAULT_BUILD_TIMEOUT_SEC, type LocalBuilderOptions } from "./local-builder.js";
export { lowerAndGenerate, hostPlanOf, type GenerateTask, type GeneratedArtifact } from "./lower-and-generate.js";
export { CompileStep, resolveCompileMode, type CompileMode, type CompiledImage, type CompileStepOptions } from "./compile-step.js";
export { uvThreadPoolSize, threadPoolWarning } from "./uv-threadpool.js";
