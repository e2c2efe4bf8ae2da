/// <reference types="@webgpu/types" />
/**
 * This browser's WebGPU adapter, asked for on the page before each run: its limits go to the worker
 * (the WGSL is built for them) and the device is opened with them raised to the adapter's.
 */
import type { AdapterLimits } from "@tessera/codegen";

export interface GpuAdapter {
  readonly adapter: GPUAdapter;
  /** Vendor, architecture and description, as the adapter reports them. */
  readonly name: string;
  readonly limits: AdapterLimits;
  /** A software adapter (SwiftShader, llvmpipe, lavapipe), which runs kernels on the CPU. */
  readonly software: boolean;
}

/** The adapter, or why there is none (in plain words, for the panel). */
export async function requestGpuAdapter(): Promise<GpuAdapter | string> {
  const gpu = (globalThis.navigator as { gpu?: GPU } | undefined)?.gpu;
  if (gpu === undefined)
    return "this browser has no WebGPU (navigator.gpu is missing: an older browser, a page not served over https or localhost, or WebGPU turned off)";
  let adapter: GPUAdapter | null;
  try {
    adapter = await gpu.requestAdapter();
  } catch (err) {
    return `navigator.gpu.requestAdapter() failed: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (adapter === null)
    return "this browser has WebGPU but offers no adapter (navigator.gpu.requestAdapter() returned null: no usable GPU, or the GPU is blocklisted)";
  const l = adapter.limits;
  const limits: AdapterLimits = {
    maxComputeInvocationsPerWorkgroup: l.maxComputeInvocationsPerWorkgroup,
    maxComputeWorkgroupSizeX: l.maxComputeWorkgroupSizeX,
    maxComputeWorkgroupSizeY: l.maxComputeWorkgroupSizeY,
    maxComputeWorkgroupSizeZ: l.maxComputeWorkgroupSizeZ,
    maxComputeWorkgroupsPerDimension: l.maxComputeWorkgroupsPerDimension,
    maxComputeWorkgroupStorageSize: l.maxComputeWorkgroupStorageSize,
    maxStorageBuffersPerShaderStage: l.maxStorageBuffersPerShaderStage,
  };
  const info = adapter.info;
  const name = [info?.vendor, info?.architecture, info?.description].filter((s) => s !== undefined && s !== "").join(" ");
  const software = info?.isFallbackAdapter === true || /swiftshader|llvmpipe|lavapipe/i.test(name);
  return { adapter, name: name === "" ? "an unnamed adapter" : name, limits, software };
}

/** A device with the adapter's limits (the WGSL was built for them) and timestamp queries where the adapter has them. */
export function openDevice(gpu: GpuAdapter): Promise<GPUDevice> {
  const timestamps = gpu.adapter.features.has("timestamp-query");
  return gpu.adapter.requestDevice({
    requiredLimits: { ...gpu.limits },
    ...(timestamps ? { requiredFeatures: ["timestamp-query"] as GPUFeatureName[] } : {}),
  });
}
