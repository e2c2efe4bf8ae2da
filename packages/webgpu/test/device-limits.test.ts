/**
 * loadModule checks every kernel against the device's own limits before it compiles anything, and
 * names each limit exceeded: a stand-in device with small limits, no adapter needed.
 */
/// <reference types="@webgpu/types" />
import { webGpuTargetFromLimits } from "@tessera/codegen";
import { manualSchedule } from "@tessera/corpus";
import { describe, expect, it } from "vitest";
import { WebGpuRuntimeError, build, loadModule } from "../src/index.js";

const WEBGPU_DEFAULTS = {
  maxComputeInvocationsPerWorkgroup: 256,
  maxComputeWorkgroupSizeX: 256,
  maxComputeWorkgroupSizeY: 256,
  maxComputeWorkgroupSizeZ: 64,
  maxComputeWorkgroupsPerDimension: 65535,
  maxComputeWorkgroupStorageSize: 16384,
  maxStorageBuffersPerShaderStage: 8,
};

/** A device that has `limits` and fails the test if anything is compiled on it. */
function deviceWith(limits: Partial<typeof WEBGPU_DEFAULTS>): { device: GPUDevice; compiled: string[] } {
  const compiled: string[] = [];
  const stub = {
    limits: { ...WEBGPU_DEFAULTS, ...limits },
    features: new Set<string>(),
    pushErrorScope: () => undefined,
    createShaderModule: (d: { code: string }) => {
      compiled.push(d.code);
      throw new Error("compiled a kernel that does not fit the device");
    },
  };
  return { device: stub as unknown as GPUDevice, compiled };
}

describe("loadModule against the device's limits", () => {
  // Built for an adapter with 32 KiB of workgroup memory: the manual schedule's tiles use all of it.
  const built = build(manualSchedule(256), webGpuTargetFromLimits({ ...WEBGPU_DEFAULTS, maxComputeWorkgroupStorageSize: 32768 }));

  it("refuses a kernel whose workgroup memory exceeds the device's, naming the limit, before compiling", async () => {
    const { device, compiled } = deviceWith({});
    const err = await loadModule(device, built).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WebGpuRuntimeError);
    expect((err as Error).message).toMatch(/does not fit this device: .*maxComputeWorkgroupStorageSize/);
    expect(compiled).toEqual([]);
  });

  it("names the invocation limit when the workgroup has more threads than the device allows", async () => {
    const { device } = deviceWith({ maxComputeWorkgroupStorageSize: 32768, maxComputeInvocationsPerWorkgroup: 16 });
    await expect(loadModule(device, built)).rejects.toThrow(/maxComputeInvocationsPerWorkgroup/);
  });
});
