/**
 * The L1 data and L2 cache sizes of the machine, from the first source that has both:
 *   1. Linux's sysfs (`/sys/devices/system/cpu/cpu0/cache/index*`);
 *   2. `getconf LEVEL1_DCACHE_SIZE LEVEL2_CACHE_SIZE` (glibc answers from CPUID, so this works in
 *      containers and VMs that hide sysfs's cache directory, as this project's CI machine does);
 *   3. `sysctl -n hw.l1dcachesize hw.l2cachesize` (macOS).
 */
import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

export interface CacheSizes {
  readonly l1DataBytes: number;
  readonly l2Bytes: number;
  /** Where the sizes came from: "sysfs", "getconf" or "sysctl". */
  readonly source: CacheSizeSource;
}

export type CacheSizeSource = "sysfs" | "getconf" | "sysctl";

function parseCacheSize(text: string): number | undefined {
  const m = /^(\d+)\s*([KMG]?)/i.exec(text.trim());
  if (m === null) return undefined;
  const unit = { "": 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[m[2]!.toUpperCase() as "" | "K" | "M" | "G"];
  return Number(m[1]) * unit;
}

/** Both sizes when each is a positive byte count, else undefined. */
function sizes(l1: number | undefined, l2: number | undefined, source: CacheSizeSource): CacheSizes | undefined {
  const ok = (n: number | undefined): n is number => n !== undefined && Number.isSafeInteger(n) && n > 0;
  return ok(l1) && ok(l2) ? { l1DataBytes: l1, l2Bytes: l2, source } : undefined;
}

/** L1 data and L2 sizes of cpu0 from Linux's sysfs, or undefined where it is not readable. */
export function cacheSizesFromSysfs(root = "/sys/devices/system/cpu/cpu0/cache"): CacheSizes | undefined {
  let l1: number | undefined;
  let l2: number | undefined;
  try {
    for (const entry of readdirSync(root)) {
      if (!entry.startsWith("index")) continue;
      const read = (file: string): string => readFileSync(join(root, entry, file), "utf8").trim();
      const level = read("level");
      const type = read("type");
      const size = parseCacheSize(read("size"));
      if (level === "1" && type === "Data") l1 = size;
      if (level === "2" && type !== "Instruction") l2 = size;
    }
  } catch {
    return undefined;
  }
  return sizes(l1, l2, "sysfs");
}

/**
 * The sizes in the output of `getconf -a` (lines `LEVEL1_DCACHE_SIZE   49152`); an empty or zero
 * field (glibc's answer where CPUID does not say) gives undefined.
 */
export function cacheSizesFromGetconfText(text: string): CacheSizes | undefined {
  const field = (name: string): number | undefined => {
    const m = new RegExp(`^${name}\\s+(\\d+)\\s*$`, "m").exec(text);
    return m === null ? undefined : Number(m[1]);
  };
  return sizes(field("LEVEL1_DCACHE_SIZE"), field("LEVEL2_CACHE_SIZE"), "getconf");
}

/** The output of `sysctl -n hw.l1dcachesize hw.l2cachesize`: two byte counts, one a line. */
export function cacheSizesFromSysctlText(text: string): CacheSizes | undefined {
  const lines = text.trim().split(/\s*\n\s*/);
  if (lines.length !== 2 || !lines.every((l) => /^\d+$/.test(l))) return undefined;
  return sizes(Number(lines[0]), Number(lines[1]), "sysctl");
}

function commandOutput(command: string, args: readonly string[]): string | undefined {
  const r = spawnSync(command, args, { encoding: "utf8", timeout: 5_000 });
  return r.status === 0 && typeof r.stdout === "string" ? r.stdout : undefined;
}

/** The machine's cache sizes from the first source that has them (see the module comment). */
export function probeCacheSizesOfHost(sysfsRoot?: string): CacheSizes | undefined {
  const fromSysfs = cacheSizesFromSysfs(sysfsRoot);
  if (fromSysfs !== undefined) return fromSysfs;
  if (process.platform === "darwin") {
    const out = commandOutput("sysctl", ["-n", "hw.l1dcachesize", "hw.l2cachesize"]);
    return out === undefined ? undefined : cacheSizesFromSysctlText(out);
  }
  const out = commandOutput("getconf", ["-a"]);
  return out === undefined ? undefined : cacheSizesFromGetconfText(out);
}
