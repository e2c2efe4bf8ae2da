/** WGSL (WebGPU) generation from modules lowered for a WebGPU target. */
export { ShaderCodegenError } from "../shader/errors.js";
export { type WgslModule, type WgslParam, codegenWgsl } from "./module.js";
export type { WgslBinding, WgslKernel } from "./launch.js";
export { checkWgslLimits, wgslLimitViolations } from "./limits.js";
