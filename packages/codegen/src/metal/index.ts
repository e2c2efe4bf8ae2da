/** Metal Shading Language source from modules lowered for a Metal target (untested on Apple hardware). */
export { type MetalKernelInfo, type MetalModule, codegenMetal } from "./module.js";
