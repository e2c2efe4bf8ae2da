/**
 * The GPU backend: the GPU-name → manifest-key mapping and the module-shape check run everywhere;
 * numerics and timing need a CUDA GPU and are skipped (with a title that says so) without one.
 */
import { cuda, type ParamSpec } from "@tessera/runtime";
import { Schedule } from "@tessera/schedule";
import { afterAll, describe, expect, it } from "vitest";
import { manualSchedule, naiveSchedule, workload } from "../../../assignments/gemm-relu-add/solution/gemm_relu_add.js";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { gpuKeyFor, openGpuBackend, workloadSize } from "../src/gpu/index.js";
import type { Numerics, Timing } from "../src/manifest/index.js";
import { gemmReluAddVariant } from "./support/workload-variants.js";

const opened = openGpuBackend();
const gpu = opened.ok ? opened.backend : undefined;
const NEEDS_GPU = "(needs a CUDA GPU; skipped without one)";
const N = 2048;

/** The course's numerics settings, with fewer rounds to keep the test short. */
const NUMERICS: Numerics = { sizes: { full: N, reduced: 256 }, rounds: 2, inputRange: [-1, 1], rtol: 1e-4, atol: 1e-4, onMismatch: "zero-part" };
const TIMING: Timing = { number: 2, repeat: 3, minRepeatMs: 10 };

afterAll(() => gpu?.dispose());

describe("gpuKeyFor", () => {
  it.each([
    ["Tesla T4", "t4"],
    ["NVIDIA T4", "t4"],
    ["NVIDIA A100-SXM4-80GB", "a100"],
    ["NVIDIA A100 80GB PCIe", "a100"],
    ["NVIDIA H100 80GB HBM3", "h100"],
    ["NVIDIA H100 PCIe", "h100"],
    ["NVIDIA H200", "h200"],
    ["NVIDIA H200 NVL", "h200"],
  ])("maps %s to %s", (name, key) => {
    expect(gpuKeyFor(name)).toBe(key);
  });

  it.each(["NVIDIA GeForce RTX 4090", "NVIDIA L4", "NVIDIA GH200 480GB", "Tesla T40", "NVIDIA A10", ""])("knows no key for %j", (name) => {
    expect(gpuKeyFor(name)).toBeUndefined();
  });
});

describe("workloadSize", () => {
  const numerics = assignmentBinding(DEFAULT_ASSIGNMENT).numerics;
  const square = (name: string, n: number, index: number): ParamSpec => ({ kind: "buffer", index, name, dtype: "float32", shape: [n, n], elements: n * n });

  it("reads n from the parameters A, B, C, D in any order", () => {
    expect(
      workloadSize(
        ["D", "A", "C", "B"].map((name, i) => square(name, 512, i)),
        numerics,
      ),
    ).toBe(512);
  });

  it("names the parameters when the module is not gemm_relu_add", () => {
    const params = [square("A", 64, 0), square("B", 64, 1), { kind: "scalar", index: 2, name: "n", dtype: "int32" } as ParamSpec];
    expect(() => workloadSize(params, numerics)).toThrow("the module's parameters are (A: float32[64, 64], B: float32[64, 64], n: int32), not A, B, C, D");
    const mixed = [square("A", 64, 0), square("B", 64, 1), square("C", 64, 2), square("D", 32, 3)];
    expect(() => workloadSize(mixed, numerics)).toThrow(/D: float32\[32, 32\]\), not A, B, C, D as float32 n×n arrays/);
  });
});

describe.skipIf(gpu !== undefined)("openGpuBackend without a GPU (skipped where there is one)", () => {
  it("returns ok: false and says why", () => {
    expect(opened.ok).toBe(false);
    if (opened.ok) return;
    expect(opened.reason).toBe(`no usable CUDA GPU: ${cuda.unavailableReason()}`);
    expect(opened.reason.length).toBeGreaterThan("no usable CUDA GPU: ".length);
  });
});

describe("the GPU backend", () => {
  it.skipIf(gpu === undefined)(`the course's manual schedule passes numerics at ${N} ${NEEDS_GPU}`, async () => {
    const outcome = await gpu!.numerics({ assignment: DEFAULT_ASSIGNMENT, schedule: manualSchedule(N), settings: NUMERICS, seed: 7 });
    expect(outcome).toMatchObject({ passed: true, backend: "gpu", device: gpu!.name, size: N });
    expect(outcome.error).toBeUndefined();
    expect(outcome.rounds.map((r) => r.seed)).toEqual([7, 8]);
    for (const round of outcome.rounds) expect(round).toMatchObject({ elements: N * N, mismatches: 0, unwritten: 0 });
  });

  it.skipIf(gpu === undefined)(`a schedule of the wrong computation fails numerics with the first mismatch ${NEEDS_GPU}`, async () => {
    const sch = new Schedule(gemmReluAddVariant(N, { relu: false }));
    naiveSchedule(sch);
    const outcome = await gpu!.numerics({ assignment: DEFAULT_ASSIGNMENT, schedule: sch, settings: NUMERICS, seed: 1 });
    expect(outcome.passed).toBe(false);
    expect(outcome.error).toBeUndefined();
    expect(outcome.rounds).toHaveLength(2);
    expect(outcome.rounds[0]!.mismatches).toBeGreaterThan((N * N) / 4);
    expect(outcome.rounds[0]!.unwritten).toBe(0);
    expect(outcome.rounds[0]!.firstMismatch).toMatch(/^D\[\d+, \d+\] = \S+; the reference is \S+$/);
  });

  it.skipIf(gpu === undefined)(`a schedule over the GPU's thread limit fails numerics with the build error ${NEEDS_GPU}`, async () => {
    const sch = new Schedule(workload(N));
    // The naive schedule with 64×64 threads per block: 4096, over every GPU's 1024.
    const gemm = sch.getBlock("gemm");
    const [i, j] = sch.getLoops(gemm);
    const [bi, ti] = sch.split(i!, [null, 64]);
    const [bj, tj] = sch.split(j!, [null, 64]);
    sch.reorder(bi!, bj!, ti!, tj!);
    sch.bind(bi!, "blockIdx.x");
    sch.bind(bj!, "blockIdx.y");
    sch.bind(ti!, "threadIdx.x");
    sch.bind(tj!, "threadIdx.y");
    sch.reverseComputeAt(sch.getBlock("relu"), tj!);
    sch.reverseComputeInline(sch.getBlock("add"));
    const outcome = await gpu!.numerics({ assignment: DEFAULT_ASSIGNMENT, schedule: sch, settings: NUMERICS, seed: 1 });
    expect(outcome).toMatchObject({ passed: false, backend: "gpu", size: N, rounds: [] });
    expect(outcome.error).toMatch(/^the schedule does not build for the .+: .*4096 threads per block/);
  });

  it.skipIf(gpu === undefined)(`times the manual schedule with the manifest's settings ${NEEDS_GPU}`, async () => {
    const t = await gpu!.time(manualSchedule(N), TIMING, DEFAULT_ASSIGNMENT);
    expect(t.meanMs).toBeGreaterThan(0);
    expect(t.stdMs).toBeGreaterThanOrEqual(0);
    expect(t.minMs).toBeLessThanOrEqual(t.medianMs);
    expect(t.medianMs).toBeLessThanOrEqual(t.maxMs);
    expect(t.repeats).toBe(TIMING.repeat);
    expect(t.number).toBeGreaterThanOrEqual(TIMING.number);
    expect(t.device).toBe(gpu!.name);
  });
});
