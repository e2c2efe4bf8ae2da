/** Records of the one C backend apply across its two names: `c` and `llvm` (target-match.ts). */
import { ops } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { MemoryDatabase, argsInfoOf, queryBestSchedule, recordAppliesTo } from "../../src/index.js";

describe("recordAppliesTo", () => {
  it("joins c and llvm for the same CPU and cores, both ways", () => {
    expect(recordAppliesTo("llvm", "c")).toBe(true);
    expect(recordAppliesTo("c", "llvm")).toBe(true);
    expect(recordAppliesTo("llvm -mcpu=znver4", "c -mcpu=znver4")).toBe(true);
    expect(recordAppliesTo("c -num-cores=2", "llvm -num-cores=2")).toBe(true);
  });

  it("keeps apart other CPUs, other thread counts, GPUs and names it does not know", () => {
    expect(recordAppliesTo("llvm -mcpu=znver4", "c")).toBe(false);
    expect(recordAppliesTo("llvm -num-cores=4", "c")).toBe(false);
    expect(recordAppliesTo("nvidia/h100", "c")).toBe(false);
    expect(recordAppliesTo("c", "nvidia/h100")).toBe(false);
    expect(recordAppliesTo("nvidia/h100", "nvidia/h100")).toBe(true);
    expect(recordAppliesTo("some-future-target", "c")).toBe(false);
  });
});

describe("queryBestSchedule across the C backend's names", () => {
  const func = ops.matmul(16, 16, 16).func;
  const tuned = new Schedule(func);
  tuned.split(tuned.getLoops(tuned.getBlock("C"))[0]!, [null, 4]);

  function databaseWithRecordFor(targetName: string): MemoryDatabase {
    const db = new MemoryDatabase();
    const workload = db.commitWorkload(func);
    db.commitTuningRecord({
      workload,
      trace: tuned.trace.toJSON(),
      runSecs: [1e-4],
      target: { name: targetName, arch: "native", maxThreadsPerBlock: 0, maxSharedMemoryPerBlock: 0 },
      argsInfo: argsInfoOf(func),
    });
    return db;
  }

  it("a record tuned for llvm schedules the function for c, and one tuned for c for llvm", () => {
    for (const [recorded, wanted] of [
      ["llvm", "c"],
      ["c", "llvm"],
    ] as const) {
      const best = queryBestSchedule(databaseWithRecordFor(recorded), func, wanted);
      expect(best?.record.target.name, `${recorded} → ${wanted}`).toBe(recorded);
      expect(best!.sch.getLoops(best!.sch.getBlock("C"))).toHaveLength(4);
    }
  });

  it("a record for another CPU is not applied", () => {
    expect(queryBestSchedule(databaseWithRecordFor("llvm -mcpu=znver4"), func, "c")).toBeUndefined();
  });
});
