/** The machine profile of the d2l CPU schedules (machine.ts) and the size rules that use it. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { printTVMScript } from "@tessera/ir";
import { afterAll, describe, expect, it } from "vitest";
import {
  DEFAULT_MACHINE,
  type MachineProfile,
  machineFor,
  matmulCpu,
  matmulTilesFor,
  probeCacheSizes,
  probeParallelRegionUs,
  probeSimdBytes,
  quietEnoughToProbe,
  worthParallel,
} from "../src/d2l-cpu/index.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function fakeSysfs(entries: Record<string, { level: string; type: string; size: string }>): string {
  const root = mkdtempSync(join(tmpdir(), "tessera-sysfs-"));
  dirs.push(root);
  for (const [name, e] of Object.entries(entries)) {
    mkdirSync(join(root, name));
    for (const [file, text] of Object.entries(e)) writeFileSync(join(root, name, file), `${text}\n`);
  }
  return root;
}

describe("probeCacheSizes", () => {
  it("reads the L1 data and L2 sizes from sysfs, skipping the instruction cache and L3", () => {
    const root = fakeSysfs({
      index0: { level: "1", type: "Data", size: "32K" },
      index1: { level: "1", type: "Instruction", size: "64K" },
      index2: { level: "2", type: "Unified", size: "1024K" },
      index3: { level: "3", type: "Unified", size: "32M" },
    });
    expect(probeCacheSizes(root)).toEqual({ l1DataBytes: 32 * 1024, l2Bytes: 1024 * 1024 });
  });

  it("is undefined without sysfs or without an L2", () => {
    expect(probeCacheSizes(join(tmpdir(), "no-such-sysfs-dir"))).toBeUndefined();
    expect(probeCacheSizes(fakeSysfs({ index0: { level: "1", type: "Data", size: "48K" } }))).toBeUndefined();
  });
});

describe("probeSimdBytes", () => {
  const cpuinfo = (flags: string): string => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-cpuinfo-"));
    dirs.push(dir);
    writeFileSync(join(dir, "cpuinfo"), `processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: ${flags}\n\nprocessor\t: 1\n`);
    return join(dir, "cpuinfo");
  };

  it("reads the widest vector extension from the CPU flags", () => {
    expect(probeSimdBytes(cpuinfo("fpu sse sse2 avx avx2 fma avx512f avx512bw"))).toBe(64);
    expect(probeSimdBytes(cpuinfo("fpu sse sse2 avx avx2 fma"))).toBe(32);
    expect(probeSimdBytes(cpuinfo("fpu sse sse2"))).toBe(16);
  });

  it("is undefined without the file", () => {
    expect(probeSimdBytes(join(tmpdir(), "no-such-cpuinfo"))).toBeUndefined();
  });
});

describe("the region probe", () => {
  it("names the compiler when it cannot build the probe", () => {
    const r = probeParallelRegionUs("/bin/false");
    expect(r).toEqual({ why: expect.stringContaining("/bin/false -fopenmp failed") });
  });

  // Regressions: the serial job was inlined into main and compiled 4× faster than the team's outlined
  // copy, so even a team of one "cost" ~440 µs and an idle machine's probe kept mid-sized work serial;
  // and under load one preempted calibration run sized the job at a microsecond.
  it("times the serial job and a team of one on the same code: the team of one costs about nothing", () => {
    const r = probeParallelRegionUs(undefined, { threads: 1 });
    if ("why" in r) throw new Error(`the probe did not run: ${r.why}`);
    expect(r.threads).toBe(1);
    // The job was sized (above 200 µs, fastest of 5), not cut short by a preemption (which sized it at
    // ~1 µs); the timed runs may come out faster than calibration's (measured 144.6 µs once under load).
    expect(r.serialUs).toBeGreaterThan(50);
    expect(r.parallelUs).toBeLessThan(1.5 * r.serialUs);
  });

  it("probes only a quiet machine: load up to half the cores", () => {
    expect(quietEnoughToProbe(0.9, 2)).toBe(true);
    expect(quietEnoughToProbe(1.1, 2)).toBe(false);
    expect(quietEnoughToProbe(7.5, 16)).toBe(true);
  });
});

describe("sizing with a machine profile", () => {
  const cheapRegions: MachineProfile = { ...DEFAULT_MACHINE, parallelRegionUs: 5, l1DataBytes: 32 * 1024 };

  it("an explicit core count sizes for the reference machine", () => {
    expect(machineFor(8)).toEqual({ ...DEFAULT_MACHINE, cores: 8 });
  });

  it("a cheaper region makes smaller work parallel; the reference machine keeps it serial", () => {
    const work = { flops: 2 * 128 ** 3, bytes: 3 * 4 * 128 ** 2 };
    expect(worthParallel(work, 2)).toBe(false);
    expect(worthParallel(work, 2, cheapRegions)).toBe(true);
  });

  it("matmul: no region and no packing at 64³, packing and parallel regions at 1024³, parallel forced on request", () => {
    const text = (op: ReturnType<typeof matmulCpu>): string => printTVMScript(op.scheduled);
    const regions = (op: ReturnType<typeof matmulCpu>): number => text(op).split("T.parallel(").length - 1;
    const small = matmulCpu(64, 64, 64, undefined, { cores: 2 });
    expect(regions(small)).toBe(0);
    expect(text(small)).not.toContain("B_global");
    const large = matmulCpu(1024, 1024, 1024, undefined, { cores: 2 });
    expect(regions(large)).toBe(2);
    expect(text(large)).toContain("B_global");
    const forced = matmulCpu(64, 64, 64, undefined, { cores: 2, parallel: true, pack: true });
    expect(regions(forced)).toBe(2);
  });

  it("matmul: B is read in place while it fits in L2 (128³, 256³) and packed beyond (512³)", () => {
    const packs = (n: number): boolean => printTVMScript(matmulCpu(n, n, n, undefined, { cores: 2 }).scheduled).includes("B_global");
    expect([128, 256, 512].map(packs)).toEqual([false, false, true]);
  });

  it("matmul's register tile is 8 rows × 2 vectors of the machine's SIMD width", () => {
    expect(matmulTilesFor({ ...DEFAULT_MACHINE, simdBytes: 64 })).toEqual({ mr: 8, nr: 32 });
    expect(matmulTilesFor({ ...DEFAULT_MACHINE, simdBytes: 32 })).toEqual({ mr: 8, nr: 16 });
    expect(matmulTilesFor({ ...DEFAULT_MACHINE, simdBytes: 16 })).toEqual({ mr: 8, nr: 8 });
  });
});
