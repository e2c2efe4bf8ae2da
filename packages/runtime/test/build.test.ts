import { describe, expect, it } from "vitest";
import { lower, target } from "@tessera/codegen";
import { manualSchedule, naiveSchedule, scheduleCorpus, vectorAddSchedule } from "@tessera/corpus";
import { compilePrimFunc, gemmReluAdd, randomArgs, vectorAdd, type TypedArray } from "@tessera/ir";
import { build, BuildError, compileTargetFor, cuda, CudaUnavailableError, ModuleArgumentError, NDArray, type DeviceInfo } from "@tessera/runtime";

const TOL = { rtol: 1e-4, atol: 1e-4 };

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, label: string): void {
  expect(actual.length, label).toBe(expected.length);
  let bad = 0;
  let first = "";
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i] as number;
    const e = expected[i] as number;
    if (!(Math.abs(a - e) <= TOL.atol + TOL.rtol * Math.abs(e))) {
      if (bad === 0) first = `[${i}] got ${a}, expected ${e}`;
      bad++;
    }
  }
  expect(bad, `${label}: ${bad} mismatches, first ${first}`).toBe(0);
}

/** Random inputs for `original`, the output (last parameter) poisoned with NaN, and the sequential executor's result. */
function inputsAndReference(original: Parameters<typeof randomArgs>[0], seed: number): { args: TypedArray[]; expected: TypedArray } {
  const args = randomArgs(original, seed);
  const out = args.length - 1;
  (args[out] as TypedArray).fill(Number.NaN);
  const ref = args.map((a) => a.slice() as TypedArray);
  compilePrimFunc(original).run(ref);
  return { args, expected: ref[out] as TypedArray };
}

describe("build() on the sim device (the GPU simulator)", () => {
  for (const entry of scheduleCorpus()) {
    it(`${entry.name} matches the sequential executor on the unscheduled function`, async () => {
      const mod = await build(entry.build(), "nvidia/tesla-t4", { device: "sim" });
      expect(mod.device).toBe("sim");
      const { args, expected } = inputsAndReference(entry.original(), 7);
      mod(...args);
      expectClose(args[args.length - 1] as TypedArray, expected, entry.name);
      expect(mod.lastSimulation?.raceCount).toBe(0);
      mod.dispose();
    }, 60_000);
  }

  it("exposes the CUDA source, launch metadata, lowered module and header", async () => {
    const mod = await build(naiveSchedule(64), "nvidia/tesla-t4", { device: "sim" });
    expect(mod.kernels.length).toBeGreaterThan(0);
    for (const k of mod.kernels) expect(mod.source).toContain(k.name);
    expect(mod.kernels.map((k) => k.name)).toEqual(mod.lowered.kernels.map((k) => k.name));
    expect(mod.lowered.target.name).toBe("nvidia/tesla-t4");
    expect(mod.name).toBe("gemm_relu_add");
    expect(mod.params.map((p) => p.name)).toEqual(["A", "B", "C", "D"]);
    expect(mod.header()).toContain(mod.kernels[0]?.name ?? "?");
    expect(mod.compiled).toBeUndefined();
    expect(mod.attributes()).toBeUndefined();
  });

  it("accepts an already lowered module, and refuses a different target for it", async () => {
    const lowered = lower(vectorAddSchedule(256, 64), "nvidia/a100");
    const mod = await build(lowered, undefined, { device: "sim" });
    expect(mod.lowered).toBe(lowered);
    await expect(build(lowered, "nvidia/h100", { device: "sim" })).rejects.toThrow(BuildError);
  });

  it("device auto picks cuda only where CUDA is available", async () => {
    const mod = await build(vectorAddSchedule(256, 64), "nvidia/tesla-t4", { device: cuda.available() ? "sim" : "auto" });
    expect(mod.device).toBe("sim");
  });

  it("times the simulator and labels it as simulator time", async () => {
    const mod = await build(vectorAddSchedule(256, 64), "nvidia/tesla-t4", { device: "sim" });
    const { args } = inputsAndReference(vectorAdd(256).func, 1);
    const t = await mod.timeEvaluator({ number: 1, repeat: 2, minRepeatMs: 0 })(...args);
    expect(t.clock).toBe("simulator-wall-clock");
    expect(t.samples).toHaveLength(2);
    expect(t.median).toBeGreaterThan(0);
  });

  it("a disposed module cannot be called", async () => {
    const mod = await build(vectorAddSchedule(256, 64), "nvidia/tesla-t4", { device: "sim" });
    const { args } = inputsAndReference(vectorAdd(256).func, 1);
    mod.dispose();
    mod.dispose();
    expect(mod.disposed).toBe(true);
    expect(() => mod(...args)).toThrow(BuildError);
  });
});

describe("argument validation", () => {
  const made = build(vectorAddSchedule(256, 64), "nvidia/tesla-t4", { device: "sim" });
  const ok = (): Float32Array[] => [new Float32Array(256), new Float32Array(256), new Float32Array(256)];

  it("wrong argument count lists the parameters", async () => {
    const mod = await made;
    expect(() => mod(new Float32Array(256))).toThrow(/vector_add takes 3 arguments \(A: float32\[256\], B: float32\[256\], C: float32\[256\]\), got 1/);
  });

  it("wrong element type names the argument index, expected dtype and shape", async () => {
    const mod = await made;
    const args: unknown[] = ok();
    args[1] = new Float64Array(256);
    let err: unknown;
    try {
      mod(...args);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ModuleArgumentError);
    expect((err as ModuleArgumentError).index).toBe(1);
    expect((err as Error).message).toMatch(/argument 1 \(B\): expected a Float32Array of 256 elements \(float32\[256\]\), got a Float64Array of 256 elements/);
  });

  it("wrong length and non-array arguments", async () => {
    const mod = await made;
    expect(() => mod(new Float32Array(256), new Float32Array(255), new Float32Array(256))).toThrow(/argument 1 \(B\).*got a Float32Array of 255 elements/);
    expect(() => mod(new Float32Array(256), new Float32Array(256), [1, 2, 3])).toThrow(/argument 2 \(C\).*got a plain Array/);
    expect(() => mod(new Float32Array(256), undefined, new Float32Array(256))).toThrow(ModuleArgumentError);
  });

  it("unknown device and unknown target are clear errors", async () => {
    await expect(build(vectorAddSchedule(256, 64), "nvidia/tesla-t4", { device: "tpu" as "sim" })).rejects.toThrow(/unknown device "tpu"/);
    await expect(build(vectorAddSchedule(256, 64), "nvidia/p100", { device: "sim" })).rejects.toThrow(/unknown target/);
  });

  it('the old device name "cpu" is refused with the new names: "sim" for the simulator, the c target for native code', async () => {
    const old = build(vectorAddSchedule(256, 64), "nvidia/tesla-t4", { device: "cpu" as "sim" });
    await expect(old).rejects.toThrow(BuildError);
    await expect(old).rejects.toThrow(
      'build: device "cpu" is now called "sim" (the GPU simulator); to compile native code for the CPU, build for the C target ("c" or "llvm")',
    );
  });

  it("webgpu and metal targets are refused with where their kernels run", async () => {
    await expect(build(vectorAddSchedule(256, 64), "webgpu")).rejects.toThrow(/webgpu kernels do not run through @tessera\/runtime; .*@tessera\/webgpu/);
    await expect(build(vectorAddSchedule(256, 64), target("metal"))).rejects.toThrow(/metal kernels do not run through @tessera\/runtime; codegenMetal/);
  });

  it("a C target object goes to the host build, never to a GPU device", async () => {
    const lowered = lower(vectorAddSchedule(64, 32), "nvidia/tesla-t4");
    await expect(build(lowered, target("c"))).rejects.toThrow(/lowered for the GPU target nvidia\/tesla-t4; give the scheduled function to build for c/);
  });
});

describe("compileTargetFor", () => {
  const h100 = { ordinal: 0, name: "H100", arch: "sm_90" } as DeviceInfo;
  const t4 = { ordinal: 0, name: "T4", arch: "sm_75" } as DeviceInfo;
  it("compiles CUBIN for the device when the target is cuda or the same architecture", () => {
    expect(compileTargetFor(lower(vectorAddSchedule(64, 32), "cuda").target, h100)).toEqual({ arch: "sm_90", output: "cubin" });
    expect(compileTargetFor(lower(vectorAddSchedule(64, 32), "nvidia/h200").target, h100)).toEqual({ arch: "sm_90", output: "cubin" });
  });
  it("compiles PTX for an older target, and refuses a newer one", () => {
    expect(compileTargetFor(lower(vectorAddSchedule(64, 32), "nvidia/tesla-t4").target, h100)).toEqual({ arch: "sm_75", output: "ptx" });
    expect(() => compileTargetFor(lower(vectorAddSchedule(64, 32), "nvidia/h100").target, t4)).toThrow(BuildError);
  });
  it("compiles CUBIN for sm_90a when the module needs it (wgmma), on an sm_90 device only", () => {
    const a100 = { ordinal: 1, name: "A100", arch: "sm_80" } as DeviceInfo;
    const cudaTarget = lower(vectorAddSchedule(64, 32), "cuda").target;
    expect(compileTargetFor(cudaTarget, h100, "sm_90a")).toEqual({ arch: "sm_90a", output: "cubin" });
    expect(() => compileTargetFor(cudaTarget, a100, "sm_90a")).toThrow(/instructions of sm_90a only \(wgmma\); device 1, A100, is sm_80/);
  });
});

describe.skipIf(cuda.available())("build() without a GPU (SKIPPED where CUDA is available)", () => {
  it('device "cuda" throws CudaUnavailableError with the reason', async () => {
    const err = await build(vectorAddSchedule(256, 64), "nvidia/tesla-t4", { device: "cuda" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CudaUnavailableError);
    expect((err as CudaUnavailableError).reason).toBe(cuda.unavailableReason());
    expect((err as Error).message).toContain(cuda.unavailableReason() ?? "?");
  });
});

const gpuTitle = cuda.available()
  ? "build() on the cuda device"
  : `build() on the cuda device (SKIPPED: CUDA unavailable — ${cuda.unavailableReason() ?? "unknown"})`;

describe.runIf(cuda.available())(gpuTitle, () => {
  const cases = [
    { name: "vector add", original: () => vectorAdd(1000).func, schedule: () => vectorAddSchedule(1000, 128) },
    ...scheduleCorpus()
      .filter((e) => e.name !== "vector_add")
      .map((e) => ({ name: e.name, original: e.original, schedule: e.build })),
    { name: "manual gemm (reference params), 128³", original: () => gemmReluAdd(128).func, schedule: () => manualSchedule(128) },
  ];
  for (const c of cases) {
    it(`${c.name} on the GPU matches the sequential executor`, async () => {
      const gpu = await build(c.schedule(), "cuda", { device: "cuda" });
      expect(gpu.device).toBe("cuda");
      expect(gpu.compiled?.image.byteLength).toBeGreaterThan(0);
      const { args, expected } = inputsAndReference(c.original(), 3);
      const device = args.map((a, i) => NDArray.from(a as Float32Array, { shape: gpu.params[i]?.kind === "buffer" ? gpu.params[i].shape : [a.length] }));
      try {
        gpu(...device);
        const got = (device[device.length - 1] as NDArray).toTypedArray() as Float32Array;
        expectClose(got, expected, c.name);
        const t = await gpu.timeEvaluator({ number: 1, repeat: 2, minRepeatMs: 0 })(...device);
        expect(t.clock).toBe("cuda-events");
        expect(() => gpu(...args)).toThrow(/the cuda device takes NDArrays/);
      } finally {
        for (const d of device) d.dispose();
        gpu.dispose();
      }
    }, 120_000);
  }
});
