/**
 * The examples in examples/ through every subcommand: the course's manual gemm+ReLU+add schedule
 * at 256³ (the scheduled function, its trace as JSON and as show() text) and a d2l CPU operator
 * (vector add, scheduled for the C target and for a GPU).
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "../src/index.js";
import { exampleFiles } from "../scripts/examples.js";
import { captureIO } from "./capture.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const ex = (name: string): string => join(root, "examples", name);
const read = (name: string): string => readFileSync(ex(name), "utf8");

async function tessera(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIO();
  const code = await runCli(args, io);
  return { code, out: io.out, err: io.err };
}

describe("examples/ are what scripts/examples.ts produces (pnpm examples)", () => {
  it("every generated file is checked in unchanged", () => {
    for (const [name, text] of exampleFiles()) expect(read(name), name).toBe(text);
  });
});

describe("the course's manual schedule at 256³", () => {
  const unscheduled = ex("gemm_relu_add.py");
  const scheduled = ex("gemm_relu_add_manual.py");
  const traces = [ex("gemm_relu_add_manual.trace.json"), ex("gemm_relu_add_manual.trace.ts")];

  it("print: the scheduled example is canonical TVMScript", async () => {
    expect(await tessera("print", scheduled)).toEqual({ code: 0, out: read("gemm_relu_add_manual.py"), err: "" });
  });

  it("apply: either trace turns the unscheduled example into the scheduled one", async () => {
    for (const trace of traces)
      expect(await tessera("apply", unscheduled, "--trace", trace), trace).toEqual({ code: 0, out: read("gemm_relu_add_manual.py"), err: "" });
  });

  it("equal: the scheduled example differs from the unscheduled one (exit 1) and equals itself", async () => {
    expect((await tessera("equal", unscheduled, scheduled)).code).toBe(1);
    expect((await tessera("equal", scheduled, scheduled)).code).toBe(0);
  });

  it("run: the schedule computes what the unscheduled function computes", async () => {
    const a = await tessera("run", unscheduled, "--seed", "1");
    const b = await tessera("run", scheduled, "--seed", "1");
    expect(a.code).toBe(0);
    expect(b.out).toBe(a.out);
    expect(b.out).toMatch(/D \(written\): 256×256 float32/);
  });

  it("build: CUDA of the scheduled example, the same from the unscheduled one and its text trace", async () => {
    const direct = await tessera("build", scheduled, "--target", "nvidia/tesla-t4");
    expect(direct.code).toBe(0);
    expect(direct.out).toContain("__global__");
    expect(direct.out).toContain("__shared__");
    expect(await tessera("build", unscheduled, "--trace", traces[1]!, "--target", "nvidia/tesla-t4")).toEqual(direct);
  });

  it("simulate: the schedule matches the sequential executor with no race", async () => {
    const r = await tessera("simulate", unscheduled, "--trace", traces[1]!);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("OK: main on nvidia/tesla-t4 matches the sequential executor, no shared-memory race");
  }, 60_000);
});

describe("d2l's vector add on the CPU (C target) and a GPU", () => {
  const unscheduled = ex("vector_add.py");
  const cpu = ex("vector_add_cpu.py");

  it("print, apply and equal: the CPU trace gives the scheduled example", async () => {
    expect((await tessera("print", cpu)).out).toBe(read("vector_add_cpu.py"));
    expect((await tessera("apply", unscheduled, "--trace", ex("vector_add_cpu.trace.json"))).out).toBe(read("vector_add_cpu.py"));
    expect((await tessera("equal", unscheduled, cpu)).code).toBe(1);
  });

  it("run: the schedule does not change the result", async () => {
    const a = await tessera("run", unscheduled, "--seed", "4");
    expect(a.code).toBe(0);
    expect((await tessera("run", cpu, "--seed", "4")).out).toBe(a.out);
  });

  it("build --target c: OpenMP parallel chunks and a SIMD inner loop", async () => {
    const r = await tessera("build", cpu, "--target", "c");
    expect(r.code).toBe(0);
    expect(r.out).toContain("#pragma omp parallel for");
    expect(r.out).toContain("#pragma omp simd");
    expect(r.out).toContain("TESSERA_EXPORT void vector_add(float* restrict A");
  });

  it("simulate: the GPU trace matches the sequential executor", async () => {
    const r = await tessera("simulate", unscheduled, "--trace", ex("vector_add_gpu.trace.json"));
    expect(r.code).toBe(0);
    expect(r.out).toContain("OK: vector_add on nvidia/tesla-t4");
  });
});
