/**
 * What `pnpm bench:wgsl-probe` tries on a GPU host, in order, to get Dawn an adapter on the NVIDIA
 * GPU: a pure function of what was found on the host (host facts), so that the order and the
 * environment of every attempt can be tested without the host.
 *
 * 1. Dawn's Vulkan backend with the Vulkan loader the bundle carries (the host has none) and
 *    VK_ICD_FILENAMES naming each NVIDIA ICD json found, as it is;
 * 2. the same with an ICD json written here that names libEGL_nvidia.so.0, when the driver has it
 *    (the shipped json names libGLX_nvidia.so.0, which a headless container may lack or which may
 *    refuse vkCreateInstance without an X server);
 * 3. Dawn's OpenGL ES backend on NVIDIA's EGL, with EGL_PLATFORM=surfaceless, then =device,
 *    through glvnd (the host's libEGL.so.1, else the carried one) and a vendor json naming
 *    libEGL_nvidia.so.0;
 * 4. with `dryRun` only: Dawn's OpenGL ES backend on Mesa (llvmpipe), so that the whole path runs
 *    on a machine without a GPU.
 */

/** What was found on the host. Paths are absolute; undefined: not found. */
export interface HostFacts {
  /** NVIDIA Vulkan ICD jsons and the library each names (`library_path`), if readable. */
  readonly nvidiaIcds: readonly { readonly json: string; readonly library: string | undefined; readonly libraryFound: string | undefined }[];
  /** Where libEGL_nvidia.so.0 is. */
  readonly eglNvidia: string | undefined;
  /** Where the host's glvnd libEGL.so.1 is. */
  readonly hostLibEgl: string | undefined;
  /** The folder of the carried Vulkan loader (libvulkan.so.1), if the bundle has one. */
  readonly carriedVulkanDir: string | undefined;
  /** The folder of the carried glvnd libEGL.so.1 and libGLdispatch.so.0, if the bundle has one. */
  readonly carriedEglDir: string | undefined;
  /** The LD_LIBRARY_PATH the probe started with. */
  readonly ldLibraryPath: string | undefined;
}

/** One try: a backend and the environment to run bench-wgsl under. */
export interface ProbeAttempt {
  readonly name: string;
  readonly backend: "vulkan" | "opengles";
  /** Variables to set (a value) or unset (null) for the child. */
  readonly env: Readonly<Record<string, string | null>>;
  /** Files to write before the attempt (generated ICD/vendor jsons). */
  readonly files: Readonly<Record<string, string>>;
  /** Why this attempt cannot run at all (then it is reported, not run). */
  readonly skipped?: string;
}

/** An ICD or glvnd vendor json naming `library`. */
export function icdJson(library: string, apiVersion?: string): string {
  const icd = apiVersion === undefined ? { library_path: library } : { library_path: library, api_version: apiVersion };
  return `${JSON.stringify({ file_format_version: "1.0.0", ICD: icd }, null, 2)}\n`;
}

function withPath(dir: string | undefined, rest: string | undefined): string | undefined {
  const parts = [dir, rest].filter((p): p is string => p !== undefined && p !== "");
  return parts.length === 0 ? undefined : parts.join(":");
}

/** The attempts, in order; `scratch` is a folder for generated jsons. */
export function probePlan(facts: HostFacts, scratch: string, dryRun = false): ProbeAttempt[] {
  const attempts: ProbeAttempt[] = [];
  const vulkanLd = withPath(facts.carriedVulkanDir, facts.ldLibraryPath);
  const noLoader = facts.carriedVulkanDir === undefined ? "the bundle carries no Vulkan loader (libvulkan.so.1)" : undefined;
  const vulkanEnv = (icd: string): Record<string, string | null> => ({
    ...(vulkanLd === undefined ? {} : { LD_LIBRARY_PATH: vulkanLd }),
    VK_ICD_FILENAMES: icd,
    VK_LOADER_DEBUG: "error,warn,driver",
  });
  if (facts.nvidiaIcds.length === 0) {
    attempts.push({ name: "Vulkan, the driver's NVIDIA ICD json", backend: "vulkan", env: {}, files: {}, skipped: "no NVIDIA ICD json on the host" });
  }
  for (const icd of facts.nvidiaIcds) {
    const missing = icd.library !== undefined && icd.libraryFound === undefined ? ` (its library ${icd.library} is not on the host)` : "";
    attempts.push({
      name: `Vulkan, ICD ${icd.json} → ${icd.library ?? "?"}${missing}`,
      backend: "vulkan",
      env: vulkanEnv(icd.json),
      files: {},
      ...(noLoader === undefined ? {} : { skipped: noLoader }),
    });
  }
  const eglIcd = `${scratch}/nvidia_icd_egl.json`;
  attempts.push({
    name: `Vulkan, ICD json naming ${facts.eglNvidia ?? "libEGL_nvidia.so.0"}`,
    backend: "vulkan",
    env: facts.eglNvidia === undefined ? {} : vulkanEnv(eglIcd),
    files: facts.eglNvidia === undefined ? {} : { [eglIcd]: icdJson(facts.eglNvidia, "1.3.0") },
    ...(facts.eglNvidia === undefined ? { skipped: "no libEGL_nvidia.so.0 on the host" } : noLoader === undefined ? {} : { skipped: noLoader }),
  });
  const eglDir = facts.hostLibEgl === undefined ? facts.carriedEglDir : undefined;
  const eglLd = withPath(eglDir, facts.ldLibraryPath);
  const vendor = `${scratch}/10_nvidia_egl.json`;
  const glSkipped =
    facts.eglNvidia === undefined
      ? "no libEGL_nvidia.so.0 on the host"
      : facts.hostLibEgl === undefined && facts.carriedEglDir === undefined
        ? "no glvnd libEGL.so.1 on the host or in the bundle"
        : undefined;
  for (const platform of ["surfaceless", "device"] as const) {
    attempts.push({
      name: `OpenGL ES on NVIDIA's EGL, EGL_PLATFORM=${platform}`,
      backend: "opengles",
      env: {
        ...(eglLd === undefined ? {} : { LD_LIBRARY_PATH: eglLd }),
        __EGL_VENDOR_LIBRARY_FILENAMES: vendor,
        EGL_PLATFORM: platform,
      },
      files: facts.eglNvidia === undefined ? {} : { [vendor]: icdJson(facts.eglNvidia) },
      ...(glSkipped === undefined ? {} : { skipped: glSkipped }),
    });
  }
  if (dryRun) attempts.push({ name: "OpenGL ES on Mesa (llvmpipe; --dry-run only)", backend: "opengles", env: { EGL_PLATFORM: "surfaceless" }, files: {} });
  return attempts;
}
