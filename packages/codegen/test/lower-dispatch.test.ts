/** `lower(func, target)` picks the pipeline by the target's kind; GPU-only passes refuse other kinds. */
import { ops } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import {
  CUDA_LOWERING_PASSES,
  C_LOWERING_PASSES,
  LoweringError,
  describePipeline,
  injectVirtualThreadPass,
  lower,
  passRunsFor,
  target,
  threadSyncPass,
  vectorizeLoopPass,
} from "../src/index.js";
import { runPasses } from "../src/lower/run-passes.js";

const GPU_ONLY = ["lowerTmaCopy", "lowerWarpMemory", "vectorizeLoop", "injectVirtualThread", "threadSync", "injectPTXAsyncCopy", "injectWgmmaSync"];

function boundVectorAdd(): Schedule {
  const sch = new Schedule(ops.vectorAdd(256).func);
  const [i] = sch.getLoops(sch.getBlock("C"));
  const [bx, tx] = sch.split(i!, [undefined, 64]);
  sch.bind(bx!, "blockIdx.x");
  sch.bind(tx!, "threadIdx.x");
  return sch;
}

describe("lower(func, target)", () => {
  it("runs the GPU pipeline for a CUDA target", () => {
    const m = lower(boundVectorAdd(), "nvidia/tesla-t4", { recordStages: true });
    expect(m.target.kind).toBe("cuda");
    expect(m.kernels.map((k) => k.name)).toEqual(["vector_add_kernel"]);
    expect(m.stages.map((s) => s.pass)).toEqual([...CUDA_LOWERING_PASSES.map((p) => p.name), "splitHostDevice"]);
    expect(m.stages.map((s) => s.pass)).toEqual(expect.arrayContaining(GPU_ONLY));
  });

  it("runs the C pipeline for a C target, without a GPU pass", () => {
    const sch = new Schedule(ops.vectorAdd(256).func);
    const lowered = lower(sch, target("c"), { recordStages: true });
    expect(lowered.target).toMatchObject({ kind: "c", name: "c" });
    expect("kernels" in lowered).toBe(false);
    const ran = lowered.stages.map((s) => s.pass);
    expect(ran).toEqual(C_LOWERING_PASSES.map((p) => p.name));
    expect(ran.filter((name) => GPU_ONLY.includes(name))).toEqual([]);
  });

  it("resolves a target string only known at run time to the matching pipeline", () => {
    const cases: [string, Schedule][] = [
      ["llvm -num-cores=2", new Schedule(ops.vectorAdd(256).func)],
      ["cuda", boundVectorAdd()],
    ];
    const results = cases.map(([name, sch]) => lower(sch, name));
    expect(results.map((r) => [r.target.kind, "kernels" in r])).toEqual([
      ["c", false],
      ["cuda", true],
    ]);
  });

  it("describes each kind's pipeline", () => {
    expect(describePipeline("c").map((s) => s.name)).toEqual(C_LOWERING_PASSES.map((p) => p.name));
    expect(
      describePipeline()
        .map((s) => s.name)
        .slice(-2),
    ).toEqual(["splitHostDevice", "verifyGpuCode"]);
  });
});

describe("GPU-only passes", () => {
  it("declare their kind, and the C pipeline has none of them", () => {
    expect(CUDA_LOWERING_PASSES.filter((p) => !passRunsFor(p, "c")).map((p) => p.name)).toEqual(GPU_ONLY);
    expect(C_LOWERING_PASSES.every((p) => passRunsFor(p, "c"))).toBe(true);
  });

  it("are refused by the pass runner before they run for another kind", () => {
    const func = new Schedule(ops.vectorAdd(16).func).func;
    const gpuOnly = { name: "gpuOnly", targetKinds: ["cuda"] as const, run: () => expect.unreachable("a GPU-only pass ran for a C target") };
    expect(() => runPasses([gpuOnly], func, { target: target("c") }, false)).toThrow('gpuOnly: is not a pass for c targets (target "c")');
  });

  it("refuse to run for a C target, naming the pass and the target", () => {
    const func = lower(new Schedule(ops.vectorAdd(16).func), "c").func;
    const ctx = { target: target("c") };
    for (const pass of [vectorizeLoopPass, injectVirtualThreadPass, threadSyncPass]) {
      expect(() => pass.run(func, ctx)).toThrow(LoweringError);
      expect(() => pass.run(func, ctx)).toThrow(`${pass.name}: runs only for CUDA targets, not for the c target "c"`);
    }
  });
});
