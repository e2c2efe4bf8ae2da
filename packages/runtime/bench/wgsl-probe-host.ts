/**
 * The host facts `probePlan` needs: the NVIDIA Vulkan ICD jsons (with the library each names and
 * whether it is there), NVIDIA's and glvnd's EGL libraries, and what the device bundle carries.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { HostFacts } from "./wgsl-probe-plan.js";

const ICD_DIRS = ["/etc/vulkan/icd.d", "/usr/share/vulkan/icd.d", "/usr/local/share/vulkan/icd.d"];
const LIB_DIRS = ["/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib"];

/** The dynamic linker's cache (`ldconfig -p`): library name → path; empty when ldconfig is missing. */
function linkerCache(): Map<string, string> {
  const cache = new Map<string, string>();
  for (const ldconfig of ["ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"]) {
    try {
      const text = execFileSync(ldconfig, ["-p"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
      for (const m of text.matchAll(/^\s*(\S+) \(([^)]*)\) => (\S+)$/gm)) if (m[2]!.includes("x86-64") || !cache.has(m[1]!)) cache.set(m[1]!, m[3]!);
      return cache;
    } catch {
      // the next spelling
    }
  }
  return cache;
}

/** Where the dynamic linker would find `library` (a name or an absolute path), or undefined. */
export function makeLibraryFinder(ldLibraryPath: string | undefined): (library: string) => string | undefined {
  const cache = linkerCache();
  const dirs = [...(ldLibraryPath ?? "").split(":").filter((d) => d !== ""), ...LIB_DIRS];
  return (library) => {
    if (isAbsolute(library)) return existsSync(library) ? library : undefined;
    const inDir = dirs.map((d) => join(d, library)).find((p) => existsSync(p));
    return inDir ?? cache.get(library);
  };
}

/** The NVIDIA ICD jsons in the loader's standard folders, with their text. */
export function nvidiaIcdJsons(): { path: string; text: string }[] {
  const found: { path: string; text: string }[] = [];
  for (const dir of ICD_DIRS) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names.filter((n) => /nvidia/i.test(n) && n.endsWith(".json"))) {
      const path = join(dir, name);
      found.push({ path, text: readFileSync(path, "utf8") });
    }
  }
  return found;
}

/** `ICD.library_path` of an ICD json's text, or undefined when it has none or is not JSON. */
export function icdLibrary(text: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    const icd = typeof parsed === "object" && parsed !== null ? (parsed as { ICD?: { library_path?: unknown } }).ICD : undefined;
    return typeof icd?.library_path === "string" ? icd.library_path : undefined;
  } catch {
    return undefined;
  }
}

/** The facts of this host; `bundleDirs` are where a carried `vulkan/` and `egl/` may be. */
export function hostFacts(bundleDirs: readonly string[]): HostFacts {
  const ldLibraryPath = process.env["LD_LIBRARY_PATH"];
  const find = makeLibraryFinder(ldLibraryPath);
  const carried = (sub: string, file: string) => bundleDirs.map((d) => join(d, sub)).find((d) => existsSync(join(d, file)));
  return {
    nvidiaIcds: nvidiaIcdJsons().map(({ path, text }) => {
      const library = icdLibrary(text);
      return { json: path, library, libraryFound: library === undefined ? undefined : find(library) };
    }),
    eglNvidia: find("libEGL_nvidia.so.0"),
    hostLibEgl: find("libEGL.so.1"),
    carriedVulkanDir: carried("vulkan", "libvulkan.so.1"),
    carriedEglDir: carried("egl", "libEGL.so.1"),
    ldLibraryPath,
  };
}
