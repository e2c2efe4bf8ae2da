import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { codegenCuda, lower, target } from "@tessera/codegen";
import { SMALL_WGMMA_PARAMS, manualSchedule, naiveSchedule, scheduleCorpus, wgmmaGemmSchedule } from "@tessera/corpus";
import { printTVMScript, structuralEqual } from "@tessera/ir";
import { nvccStatus } from "@tessera/runtime";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuilderInput, type BuilderResult, LocalBuilder } from "../../src/index.js";

const H100 = target("nvidia/h100");

function artifactOf(r: BuilderResult | undefined) {
  if (r === undefined || !r.ok) throw new Error(`expected a built candidate, got ${r === undefined ? "nothing" : r.error}`);
  return r.artifact;
}

function errorOf(r: BuilderResult | undefined): string {
  if (r === undefined || r.ok) throw new Error("expected a failed build");
  return r.error;
}

describe("LocalBuilder (worker threads)", () => {
  let builder: LocalBuilder;
  beforeAll(() => {
    builder = new LocalBuilder({ maxWorkers: 2, compile: "none" });
  });
  afterAll(async () => {
    await builder.dispose();
  });

  it("builds the schedule corpus in parallel workers, byte for byte as lower + codegenCuda in this thread", async () => {
    const entries = scheduleCorpus();
    const inputs: BuilderInput[] = entries.map((e) => ({ func: e.build().func, target: H100 }));
    const results = await builder.build(inputs);
    expect(builder.workersStarted).toBe(2);
    expect(results).toHaveLength(entries.length);
    results.forEach((r, i) => {
      const artifact = artifactOf(r);
      const expected = codegenCuda(lower(inputs[i]!.func, H100));
      expect(artifact.source, entries[i]!.name).toBe(expected.source);
      expect(artifact.kernels).toEqual(expected.kernels);
      expect(artifact.image).toBeUndefined();
      // The lowered module came back with the scheduled function intact (annotations included).
      expect(structuralEqual(artifact.lowered!.source, inputs[i]!.func)).toBe(true);
      expect(printTVMScript(artifact.lowered!.source)).toBe(printTVMScript(inputs[i]!.func));
      expect(artifact.hostPlan!.kernelArguments).toHaveLength(expected.kernels.length);
    });
    // The annotations crossed both ways (MetaSchedule's unroll pragmas, launch bounds, pipelines).
    const unrolled = printTVMScript(artifactOf(results[entries.findIndex((e) => e.name === "gemm_relu_add_unrolled")]).lowered!.source);
    expect(unrolled).toContain('"pragma_auto_unroll_max_step": 512');
    const pipelined = printTVMScript(artifactOf(results[entries.findIndex((e) => e.name === "gemm_relu_add_pipelined")]).lowered!.source);
    expect(pipelined).toContain("software_pipeline_stage");
  });

  it("records a candidate that fails to lower with the lowering error's message, and builds the others", async () => {
    const tinyShared = target("nvidia/h100", { overrides: { max_shared_memory_per_block: 1024 } });
    const results = await builder.build([
      { func: naiveSchedule(64).func, target: H100 },
      { func: manualSchedule(128, { tileX: 64, tileY: 64, tileK: 16, threadTileX: 4, threadTileY: 4, threadTileK: 1 }).func, target: tinyShared },
      { func: naiveSchedule(128).func, target: H100 },
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    expect(errorOf(results[1])).toMatch(/shared memory/i);
    expect(errorOf(results[1])).toMatch(/1024/);
  });

  it("property: random manual schedules build in the workers exactly as in the caller's thread, failures included", async () => {
    const inProcess = new LocalBuilder({ maxWorkers: 0, compile: "none" });
    const outcome = (r: BuilderResult): string => (r.ok ? r.artifact.source : `error: ${r.error}`);
    const params = fc.record({
      tileX: fc.constantFrom(16, 32, 64),
      tileY: fc.constantFrom(16, 32, 64),
      tileK: fc.constantFrom(8, 16, 32),
      threadTileX: fc.constantFrom(1, 2, 4),
      threadTileY: fc.constantFrom(1, 2, 4),
      threadTileK: fc.constantFrom(1, 2),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(params, { minLength: 2, maxLength: 4 }), async (batch) => {
        const inputs = batch.map((p) => ({ func: manualSchedule(128, p).func, target: H100 }));
        const [viaWorkers, direct] = await Promise.all([builder.build(inputs), inProcess.build(inputs)]);
        expect(viaWorkers.map(outcome)).toEqual(direct.map(outcome));
      }),
      { numRuns: 4, seed: 20261124 },
    );
  });

  it("names a malformed input", async () => {
    const results = await builder.build([
      { func: { kind: "Block" }, target: H100 } as unknown as BuilderInput,
      { func: naiveSchedule(64).func, target: "nvidia/h100" } as unknown as BuilderInput,
    ]);
    expect(errorOf(results[0])).toMatch(/input 0 has no PrimFunc \(func is a Block\)/);
    expect(errorOf(results[1])).toMatch(/input 1 has no CUDA target/);
  });
});

describe("LocalBuilder limits", () => {
  it("fails a candidate that outlives its time limit, replaces its worker, and goes on", async () => {
    // 1 ms: far less than lowering any gemm takes; the worker is killed mid-lowering.
    const builder = new LocalBuilder({ maxWorkers: 1, compile: "none", timeoutSec: 0.001 });
    try {
      const [slow] = await builder.build([{ func: manualSchedule(256).func, target: H100 }]);
      expect(errorOf(slow)).toMatch(/lowering timed out after 0.001 s/);
      expect(builder.workersStarted).toBe(1);
      await builder.build([{ func: naiveSchedule(64).func, target: H100 }]);
      expect(builder.workersStarted).toBe(2);
    } finally {
      await builder.dispose();
    }
  });

  it("lowers in the caller's thread with maxWorkers 0, with the same output", async () => {
    const builder = new LocalBuilder({ maxWorkers: 0, compile: "none" });
    const func = naiveSchedule(64).func;
    const [r] = await builder.build([{ func, target: H100 }]);
    expect(artifactOf(r).source).toBe(codegenCuda(lower(func, H100)).source);
    expect(builder.workersStarted).toBe(0);
  });
});

describe("LocalBuilder with nvcc and no GPU (CI's compile check)", async () => {
  const nvcc = await nvccStatus();
  it.skipIf(!nvcc.ok)(`compiles the generated CUDA with nvcc for the target's architecture${nvcc.ok ? "" : ` (skipped: ${nvcc.reason})`}`, async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), "tessera-ms-builder-"));
    const builder = new LocalBuilder({ maxWorkers: 0, compile: "nvcc", cacheDir, timeoutSec: 120 });
    try {
      const func = naiveSchedule(64).func;
      const results = await builder.build([
        { func, target: H100 },
        { func, target: H100 },
      ]);
      for (const r of results) {
        const artifact = artifactOf(r);
        expect(artifact.arch).toBe("sm_90");
        // A CUBIN is an ELF file.
        expect(Array.from(artifact.image!.subarray(0, 4))).toEqual([0x7f, 0x45, 0x4c, 0x46]);
      }
      // Both candidates have the same source: one compile, one cache entry (image + log).
      expect(readdirSync(cacheDir).sort()).toHaveLength(2);
    } finally {
      await builder.dispose();
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  it.skipIf(!nvcc.ok)(
    "compiles a wgmma kernel for sm_90a, the target its instructions need (regression: compiled for sm_90, ptxas refused every wgmma)",
    async () => {
      const cacheDir = mkdtempSync(join(tmpdir(), "tessera-ms-builder-"));
      const builder = new LocalBuilder({ maxWorkers: 0, compile: "nvcc", cacheDir, timeoutSec: 120 });
      try {
        const [result] = await builder.build([{ func: wgmmaGemmSchedule(128, SMALL_WGMMA_PARAMS).func, target: H100 }]);
        const artifact = artifactOf(result);
        expect(artifact.requiredArch).toBe("sm_90a");
        expect(artifact.arch).toBe("sm_90a");
      } finally {
        await builder.dispose();
        rmSync(cacheDir, { recursive: true, force: true });
      }
    },
  );
});
