/** The machine profile's cache sizes: sysfs, else getconf (CPUID) or sysctl (cache-sizes.ts). */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cacheSizesFromGetconfText, cacheSizesFromSysctlText, cacheSizesFromSysfs, probeCacheSizesOfHost } from "../../src/machine/index.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const missing = join(tmpdir(), "tessera-no-such-sysfs");

describe("cache sizes from getconf", () => {
  it("reads LEVEL1_DCACHE_SIZE and LEVEL2_CACHE_SIZE, not the instruction cache or L3", () => {
    const text = [
      "LEVEL1_ICACHE_SIZE                 32768",
      "LEVEL1_DCACHE_SIZE                 49152",
      "LEVEL1_DCACHE_ASSOC                12",
      "LEVEL2_CACHE_SIZE                  1048576",
      "LEVEL3_CACHE_SIZE                  33554432",
    ].join("\n");
    expect(cacheSizesFromGetconfText(text)).toEqual({ l1DataBytes: 49152, l2Bytes: 1048576, source: "getconf" });
  });

  it("is undefined when glibc leaves a size empty or zero", () => {
    expect(cacheSizesFromGetconfText("LEVEL1_DCACHE_SIZE                 \nLEVEL2_CACHE_SIZE                  1048576\n")).toBeUndefined();
    expect(cacheSizesFromGetconfText("LEVEL1_DCACHE_SIZE 0\nLEVEL2_CACHE_SIZE 1048576\n")).toBeUndefined();
    expect(cacheSizesFromGetconfText("")).toBeUndefined();
  });
});

describe("cache sizes from sysctl", () => {
  it("reads two byte counts", () => {
    expect(cacheSizesFromSysctlText("65536\n4194304\n")).toEqual({ l1DataBytes: 65536, l2Bytes: 4194304, source: "sysctl" });
  });

  it("is undefined for anything else", () => {
    expect(cacheSizesFromSysctlText("65536\n")).toBeUndefined();
    expect(cacheSizesFromSysctlText("sysctl: unknown oid 'hw.l2cachesize'\n")).toBeUndefined();
  });
});

describe("the host's cache sizes", () => {
  it("prefers sysfs when it has both sizes", () => {
    const root = mkdtempSync(join(tmpdir(), "tessera-sysfs-"));
    dirs.push(root);
    for (const [name, level, type, size] of [
      ["index0", "1", "Data", "32K"],
      ["index2", "2", "Unified", "2048K"],
    ] as const) {
      mkdirSync(join(root, name));
      writeFileSync(join(root, name, "level"), `${level}\n`);
      writeFileSync(join(root, name, "type"), `${type}\n`);
      writeFileSync(join(root, name, "size"), `${size}\n`);
    }
    expect(cacheSizesFromSysfs(root)).toEqual({ l1DataBytes: 32 * 1024, l2Bytes: 2048 * 1024, source: "sysfs" });
    expect(probeCacheSizesOfHost(root)).toEqual({ l1DataBytes: 32 * 1024, l2Bytes: 2048 * 1024, source: "sysfs" });
  });

  // Without sysfs's cache directory (this project's CI machine hides it), the sizes come from
  // whatever getconf reports on this host: the probe must agree with it, not fall back to defaults.
  const getconf = process.platform === "linux" ? spawnSync("getconf", ["-a"], { encoding: "utf8" }) : undefined;
  const fromGetconf = getconf?.status === 0 ? cacheSizesFromGetconfText(getconf.stdout) : undefined;
  it.skipIf(fromGetconf === undefined)(
    `without sysfs, the sizes getconf reports${fromGetconf === undefined ? " (SKIPPED: getconf reports no cache sizes here)" : ""}`,
    () => {
      expect(probeCacheSizesOfHost(missing)).toEqual(fromGetconf);
    },
  );
});
