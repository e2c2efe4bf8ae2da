/**
 * Node-only: a `GPUDevice` from Dawn (the npm package `webgpu`). Browser code never imports this
 * subpath. Without a GPU, Dawn's OpenGL ES backend on Mesa's llvmpipe (`EGL_PLATFORM=surfaceless`,
 * a compatibility-mode adapter) runs WGSL correctly, slowly; on a GPU host the Vulkan backend is
 * the one to measure.
 */
/// <reference types="@webgpu/types" />
import { WebGpuRuntimeError } from "../errors.js";

export type DawnBackend = "vulkan" | "opengles" | "opengl" | "null";

export interface NodeDeviceOptions {
  /** Dawn's backend (default `opengles`, which runs on Mesa's llvmpipe without a GPU). */
  readonly backend?: DawnBackend;
  /** Default: `compatibility` for the GL backends, `core` otherwise. */
  readonly featureLevel?: "core" | "compatibility";
  readonly powerPreference?: "low-power" | "high-performance";
  /**
   * Dawn toggles to enable (`enable-dawn-features=…`), e.g. `disable_robustness`, which drops the
   * index clamping WebGPU requires of browsers: for measuring what it costs, never for untrusted code.
   */
  readonly dawnFeatures?: readonly string[];
}

export interface NodeDevice {
  readonly device: GPUDevice;
  readonly adapter: GPUAdapter;
  /** What the adapter says it is (vendor, architecture, description). */
  readonly description: string;
  readonly backend: DawnBackend;
}

/**
 * Dawn instances handed out so far: Dawn tears its instance down when the JS object is collected,
 * even while a device made from it is in use (the process then aborts), so each is kept alive.
 */
const liveInstances: GPU[] = [];

/** The adapter's features a kernel may use: requested whenever the adapter has them. */
const WANTED_FEATURES: readonly GPUFeatureName[] = ["timestamp-query", "shader-f16"];

/**
 * A device on Dawn with the adapter's own limits (not WebGPU's defaults), or undefined with
 * `reason` when there is no adapter (no GPU, no Vulkan driver, no EGL).
 */
export async function requestNodeDevice(opts: NodeDeviceOptions = {}): Promise<NodeDevice | { readonly unavailable: string }> {
  const backend = opts.backend ?? "opengles";
  if (backend.startsWith("opengl") && process.env["EGL_PLATFORM"] === undefined) process.env["EGL_PLATFORM"] = "surfaceless";
  let dawn: typeof import("webgpu");
  try {
    dawn = await import("webgpu");
  } catch (err) {
    return { unavailable: `the npm package webgpu (Dawn) does not load: ${(err as Error).message}` };
  }
  const flags = [`backend=${backend}`];
  if (opts.dawnFeatures !== undefined && opts.dawnFeatures.length > 0) flags.push(`enable-dawn-features=${opts.dawnFeatures.join(",")}`);
  const gpu = dawn.create(flags);
  liveInstances.push(gpu);
  const featureLevel = opts.featureLevel ?? (backend.startsWith("opengl") ? "compatibility" : "core");
  const adapter = await gpu.requestAdapter({
    featureLevel,
    ...(opts.powerPreference === undefined ? {} : { powerPreference: opts.powerPreference }),
  } as GPURequestAdapterOptions);
  if (adapter === null) return { unavailable: `Dawn found no ${backend} adapter (feature level ${featureLevel})` };
  const requiredFeatures = WANTED_FEATURES.filter((f) => adapter.features.has(f));
  const requiredLimits: Record<string, number> = {};
  for (const key of [
    "maxComputeInvocationsPerWorkgroup",
    "maxComputeWorkgroupSizeX",
    "maxComputeWorkgroupSizeY",
    "maxComputeWorkgroupSizeZ",
    "maxComputeWorkgroupStorageSize",
    "maxStorageBuffersPerShaderStage",
    "maxStorageBufferBindingSize",
    "maxBufferSize",
  ] as const) {
    requiredLimits[key] = adapter.limits[key];
  }
  const device = await adapter.requestDevice({ requiredFeatures, requiredLimits });
  const info = adapter.info;
  const description = [info.vendor, info.architecture, info.description].filter((s) => s !== "").join(" ") || "unknown adapter";
  return { device, adapter, description, backend };
}

/** `requestNodeDevice`, throwing a WebGpuRuntimeError with the reason when there is no adapter. */
export async function nodeDevice(opts: NodeDeviceOptions = {}): Promise<NodeDevice> {
  const got = await requestNodeDevice(opts);
  if ("unavailable" in got) throw new WebGpuRuntimeError(got.unavailable);
  return got;
}
