/**
 * tuneTIR on the C target takes the parallel payoff from the machine's probe: with a cached probe
 * saying a parallel region costs 50 µs on 2 cores, the tuned 64³ matmul has no parallel loop (gcc,
 * the runner's child process: a slow test).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { target as targetOf } from "@tessera/codegen";
import { type MachineProfile, machineProfile, machineProfilePath } from "@tessera/corpus/d2l-cpu";
import { ops } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { tuneTIR } from "../../src/index.js";
import { loopsOf } from "./loop-helpers.js";
import { NO_SEARCH_WORKERS } from "./search-workers.js";

describe("tuneTIR on a machine where a 64³ matmul does not pay for a parallel region", () => {
  it("the tuned program is serial", async () => {
    // A probe result cached for this machine, before anything in this process asks for the profile.
    process.env.TESSERA_CACHE_DIR = mkdtempSync(join(tmpdir(), "tessera-payoff-cache-"));
    const probed: MachineProfile = { cores: 2, parallelRegionUs: 50, l1DataBytes: 48 * 1024, l2Bytes: 512 * 1024, simdBytes: 32, source: "probed" };
    mkdirSync(dirname(machineProfilePath()), { recursive: true });
    writeFileSync(machineProfilePath(), JSON.stringify(probed));
    expect(machineProfile().parallelRegionUs).toBe(50);

    const func = ops.matmul(64, 64, 64).func;
    const workDir = mkdtempSync(join(tmpdir(), "tessera-payoff-tune-"));
    const result = await tuneTIR(func, targetOf("c"), {
      workDir,
      maxTrialsGlobal: 4,
      numTrialsPerIter: 4,
      seed: 2,
      numThreads: 2,
      writeCurve: false,
      ...NO_SEARCH_WORKERS,
    });
    expect(result.bestSchedule).toBeDefined();
    const kinds = loopsOf(result.bestSchedule!.func).map((l) => l.kind);
    expect(kinds.length).toBeGreaterThan(0);
    expect(kinds).not.toContain("parallel");
  }, 180_000);
});
