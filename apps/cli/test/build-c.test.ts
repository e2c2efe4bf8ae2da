/** `tessera build --target c`: the generated C of a CPU schedule, and errors for GPU-only schedules. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { printTVMScript, vectorAdd } from "@tessera/ir";
import { type LoopRV, Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { runCli } from "../src/index.js";
import { captureIO } from "./capture.js";

const dir = mkdtempSync(join(tmpdir(), "tessera-build-c-"));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

// Large enough for a thread team (smaller parallel loops are emitted serially).
const FUNC = vectorAdd(1 << 16).func;

function schedule(kind: "cpu" | "gpu"): Schedule {
  const sch = new Schedule(FUNC);
  const [i] = sch.getLoops(sch.getBlock("C")) as [LoopRV];
  const [outer, inner] = sch.split(i, [null, 16]) as [LoopRV, LoopRV];
  if (kind === "cpu") {
    sch.parallel(outer);
    sch.vectorize(inner);
  } else {
    sch.bind(outer, "blockIdx.x");
    sch.bind(inner, "threadIdx.x");
  }
  return sch;
}

const original = file("vadd.py", printTVMScript(FUNC, { funcName: "vadd" }));
const cpuTrace = file("cpu-trace.json", JSON.stringify(schedule("cpu").trace, null, 2));
const gpuScheduled = file("vadd-gpu.py", printTVMScript(schedule("gpu").func, { funcName: "vadd" }));

async function build(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIO();
  const code = await runCli(["build", ...args], io);
  return { code, out: io.out, err: io.err };
}

describe("tessera build --target c", () => {
  it("prints the generated C of a CPU schedule: OpenMP for the parallel loop, omp simd for the vectorized one", async () => {
    const r = await build(original, "--trace", cpuTrace, "--target", "c", "--emit", "c");
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("#pragma omp parallel for");
    expect(r.out).toContain("#pragma omp simd");
    expect(r.out).toMatch(/TESSERA_EXPORT void vector_add\(float\* restrict A, float\* restrict B, float\* restrict C\)/);
    // --emit c is the default for CPU targets; llvm names map to the same target.
    const byDefault = await build(original, "--trace", cpuTrace, "--target", "llvm -mcpu=native");
    expect(byDefault.out).toContain("#pragma omp parallel for");
  });

  it("accepts a function named main, exported as tvmgen_default_main (regression: 'global symbol main is not a C identifier')", async () => {
    const asMain = file("main.py", printTVMScript({ ...FUNC, attrs: { ...FUNC.attrs, global_symbol: "main" } }, { funcName: "main" }));
    const r = await build(asMain, "--trace", cpuTrace, "--target", "c");
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("TESSERA_EXPORT void tvmgen_default_main(float* restrict A, float* restrict B, float* restrict C)");
    expect(r.out).toContain("// The C function is tvmgen_default_main (entry point tvmgen_default_main_packed), not main:");
  });

  it("--emit ir prints the lowered function the C comes from", async () => {
    const r = await build(original, "--trace", cpuTrace, "--target", "c", "--emit", "ir");
    expect(r.code).toBe(0);
    expect(r.out).toContain("T.parallel(");
    expect(r.out).toContain("T.vectorized(");
    expect(r.out).not.toContain("T.block(");
  });

  it("a GPU schedule, or a GPU artefact, is a clear error with exit 2", async () => {
    const gpu = await build(gpuScheduled, "--target", "c");
    expect(gpu.code).toBe(2);
    expect(gpu.err).toMatch(/is bound to the GPU thread axis blockIdx\.x/);
    expect(gpu.err).not.toContain("    at ");
    const emit = await build(original, "--trace", cpuTrace, "--target", "c", "--emit", "cuda");
    expect(emit.code).toBe(2);
    expect(emit.err).toContain("--emit for the CPU target c must be one of c, ir, got 'cuda'");
    const wrongTarget = await build(original, "--trace", cpuTrace, "--target", "nvidia/tesla-t4", "--emit", "c");
    expect(wrongTarget.err).toContain("--emit c needs a CPU target");
  });
});
