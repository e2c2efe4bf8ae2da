/**
 * `@tessera/meta-schedule/latency-model`: the analytic latency ESTIMATE of a lowered module on a
 * GPU (what the simulated runner reports and the analytic cost model predicts), not a measurement.
 */
export { estimateKernel, estimateLatency, type KernelEstimate, type LatencyBound, type LatencyEstimate } from "./latency-model.js";
export { profileKernel, type KernelProfile } from "./kernel-profile.js";
export { gpuSpecOf, type GpuSpec } from "./gpu-spec.js";
