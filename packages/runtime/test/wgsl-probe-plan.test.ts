import { describe, expect, it } from "vitest";
import { icdLibrary } from "../bench/wgsl-probe-host.js";
import { type HostFacts, icdJson, probePlan } from "../bench/wgsl-probe-plan.js";

const gpuHost: HostFacts = {
  nvidiaIcds: [{ json: "/usr/share/vulkan/icd.d/nvidia_icd.json", library: "libGLX_nvidia.so.0", libraryFound: undefined }],
  eglNvidia: "/usr/lib/x86_64-linux-gnu/libEGL_nvidia.so.0",
  hostLibEgl: undefined,
  carriedVulkanDir: "/bundle/vulkan",
  carriedEglDir: "/bundle/egl",
  ldLibraryPath: "/usr/local/nvidia/lib64",
};

describe("the GPU-host probe's plan", () => {
  it("tries the driver's ICD, an ICD naming libEGL_nvidia, then GLES on NVIDIA's EGL, in that order", () => {
    const plan = probePlan(gpuHost, "/tmp/probe");
    expect(plan.map((a) => [a.backend, a.skipped])).toEqual([
      ["vulkan", undefined],
      ["vulkan", undefined],
      ["opengles", undefined],
      ["opengles", undefined],
    ]);
    expect(plan[0]!.name).toContain("libGLX_nvidia.so.0 (its library libGLX_nvidia.so.0 is not on the host)");
    expect(plan[0]!.env).toMatchObject({
      LD_LIBRARY_PATH: "/bundle/vulkan:/usr/local/nvidia/lib64",
      VK_ICD_FILENAMES: "/usr/share/vulkan/icd.d/nvidia_icd.json",
    });
    expect(plan[1]!.env["VK_ICD_FILENAMES"]).toBe("/tmp/probe/nvidia_icd_egl.json");
    expect(icdLibrary(plan[1]!.files["/tmp/probe/nvidia_icd_egl.json"]!)).toBe(gpuHost.eglNvidia);
    expect(plan.slice(2).map((a) => a.env["EGL_PLATFORM"])).toEqual(["surfaceless", "device"]);
    // No glvnd libEGL.so.1 on the host: the carried one goes first on the library path.
    expect(plan[2]!.env["LD_LIBRARY_PATH"]).toBe("/bundle/egl:/usr/local/nvidia/lib64");
    expect(icdLibrary(plan[2]!.files["/tmp/probe/10_nvidia_egl.json"]!)).toBe(gpuHost.eglNvidia);
  });

  it("keeps the host's libEGL.so.1 when it has one", () => {
    const plan = probePlan({ ...gpuHost, hostLibEgl: "/usr/lib/x86_64-linux-gnu/libEGL.so.1", ldLibraryPath: undefined }, "/tmp/probe");
    expect(plan[2]!.env["LD_LIBRARY_PATH"]).toBeUndefined();
  });

  it("reports, not runs, what the host or the bundle lacks the pieces for", () => {
    const plan = probePlan({ ...gpuHost, nvidiaIcds: [], eglNvidia: undefined, carriedVulkanDir: undefined }, "/tmp/probe");
    expect(plan.map((a) => a.skipped)).toEqual([
      "no NVIDIA ICD json on the host",
      "no libEGL_nvidia.so.0 on the host",
      "no libEGL_nvidia.so.0 on the host",
      "no libEGL_nvidia.so.0 on the host",
    ]);
    const noLoader = probePlan({ ...gpuHost, carriedVulkanDir: undefined }, "/tmp/probe");
    expect(noLoader.slice(0, 2).map((a) => a.skipped)).toEqual([
      "the bundle carries no Vulkan loader (libvulkan.so.1)",
      "the bundle carries no Vulkan loader (libvulkan.so.1)",
    ]);
  });

  it("ends with Mesa's llvmpipe in a dry run only", () => {
    expect(probePlan(gpuHost, "/tmp/probe").some((a) => a.name.includes("llvmpipe"))).toBe(false);
    const last = probePlan(gpuHost, "/tmp/probe", true).at(-1)!;
    expect(last).toMatchObject({ backend: "opengles", env: { EGL_PLATFORM: "surfaceless" } });
    expect(last.skipped).toBeUndefined();
  });

  it("reads the library an ICD json names, and nothing from a broken one", () => {
    expect(icdLibrary(icdJson("libGLX_nvidia.so.0", "1.3.0"))).toBe("libGLX_nvidia.so.0");
    expect(icdLibrary("{ not json")).toBeUndefined();
    expect(icdLibrary('{"ICD": {}}')).toBeUndefined();
  });
});
