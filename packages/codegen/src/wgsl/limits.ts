/**
 * Checks a WGSL kernel against a WebGPU target's limits (or an adapter's), naming the limit as
 * `GPUSupportedLimits` does, so that the message says what to raise or change.
 */
import type { WebGpuTarget } from "../targets/gpu-source.js";
import { ShaderCodegenError } from "../shader/errors.js";
import type { WgslKernel } from "./launch.js";

const DIMS = ["X", "Y", "Z"] as const;

/** Every limit of `t` that `kernel` exceeds, as messages naming the limit (empty when it fits). */
export function wgslLimitViolations(kernel: WgslKernel, t: WebGpuTarget): string[] {
  const out: string[] = [];
  const [x, y, z] = kernel.workgroupSize;
  const invocations = x * y * z;
  if (invocations > t.maxThreadsPerBlock) {
    out.push(`${invocations} invocations per workgroup (${x}×${y}×${z}) exceed maxComputeInvocationsPerWorkgroup = ${t.maxThreadsPerBlock}`);
  }
  kernel.workgroupSize.forEach((n, d) => {
    if (n > t.maxBlockDim[d]!) out.push(`workgroup size ${DIMS[d]} = ${n} exceeds maxComputeWorkgroupSize${DIMS[d]} = ${t.maxBlockDim[d]}`);
  });
  kernel.grid.forEach((n, d) => {
    if (n > t.maxGridDim[d]!) out.push(`${n} workgroups in ${DIMS[d]} exceed maxComputeWorkgroupsPerDimension = ${t.maxGridDim[d]}`);
  });
  if (kernel.workgroupBytes > t.maxSharedMemoryPerBlock) {
    out.push(`${kernel.workgroupBytes} bytes of workgroup memory exceed maxComputeWorkgroupStorageSize = ${t.maxSharedMemoryPerBlock}`);
  }
  const storage = kernel.bindings.filter((b) => b.kind === "buffer").length;
  if (storage > t.maxStorageBuffers) out.push(`${storage} storage buffers exceed maxStorageBuffersPerShaderStage = ${t.maxStorageBuffers}`);
  return out;
}

/** Throws a ShaderCodegenError listing every limit of `t` that `kernel` exceeds. */
export function checkWgslLimits(kernel: WgslKernel, t: WebGpuTarget): void {
  const violations = wgslLimitViolations(kernel, t);
  if (violations.length > 0) throw new ShaderCodegenError("WGSL", kernel.name, `exceeds the limits of target "${t.name}": ${violations.join("; ")}`);
}
