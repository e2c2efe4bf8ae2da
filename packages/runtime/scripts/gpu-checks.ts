/**
 * GPU checks shared by test/gpu.test.ts (vitest, where a GPU and Node are on one machine) and
 * scripts/gpu-selftest.ts (bundled and run on the device machine, which has no Node install).
 * Order matters: the last check corrupts the CUDA context on purpose (illegal address).
 */
import assert from "node:assert/strict";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { scheduleCorpus } from "@tessera/corpus";
import { randomUniform } from "../bench/gpu-workloads.js";
import { compilePrimFunc, randomArgs, type TypedArray } from "@tessera/ir";
import {
  build,
  CompileError,
  compileCuda,
  ModuleArgumentError,
  cuda,
  CudaError,
  f32,
  f64,
  i64,
  loadModule,
  NDArray,
  nvccVersion,
  nvrtcStatus,
  timeEvaluator,
  type CompiledCuda,
  type LaunchMetadata,
} from "../src/index.js";

export interface GpuCheck {
  name: string;
  run(log: (line: string) => void): Promise<void> | void;
}

const VADD = `
extern "C" __global__ void vadd(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}`;

const SCALARS = `
extern "C" __global__ void scalars(double* out, float x, double y, long long z, int w) {
  out[0] = x; out[1] = y; out[2] = (double)z; out[3] = w;
}`;

const BIG_SHARED = `
extern "C" __global__ void big_shared(const float* in, float* out, int n) {
  extern __shared__ float s[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = in[i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = s[n - 1 - i] * 2.0f;
}`;

/** 48 KiB of dynamic shared memory beside a few static bytes (a TMA kernel's mbarriers): more than 48 KiB together. */
const STATIC_AND_DYNAMIC = `
extern "C" __global__ void static_and_dynamic(const float* in, float* out, int n) {
  __shared__ unsigned long long marks[3];
  extern __shared__ float s[];
  if (threadIdx.x < 3) marks[threadIdx.x] = threadIdx.x;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = in[i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = s[n - 1 - i] + (float)marks[i % 3];
}`;

const OOB = `
extern "C" __global__ void oob(float* out) {
  out[(1ull << 40) + threadIdx.x] = 1.0f;  // a terabyte past the allocation
}`;

async function expectReject(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new assert.AssertionError({ message: "expected a rejection" });
}

function expectThrow(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new assert.AssertionError({ message: "expected a throw" });
}

let vaddCubin: CompiledCuda | undefined;

export const gpuChecks: GpuCheck[] = [
  {
    name: "devices: count, name, compute capability, limits, memory",
    run(log) {
      assert.equal(cuda.available(), true);
      assert.ok(cuda.deviceCount() >= 1);
      const d = cuda.device(0);
      assert.ok(d.name.length > 0);
      assert.ok(d.computeCapability[0] >= 3);
      assert.match(d.arch, /^sm_\d+$/);
      assert.ok(d.multiprocessorCount > 0);
      assert.equal(d.maxThreadsPerBlock, 1024);
      assert.equal(d.sharedMemPerBlock, 48 * 1024);
      assert.ok(d.sharedMemPerBlockOptin >= d.sharedMemPerBlock);
      const m = cuda.memInfo(0);
      assert.ok(m.free > 0 && m.free <= m.total);
      assert.ok(Math.abs(m.total - d.totalMemoryBytes) / d.totalMemoryBytes < 0.05);
      assert.equal(cuda.devices().length, cuda.deviceCount());
      log(
        `${d.name} ${d.arch} SMs=${d.multiprocessorCount} smem/block=${d.sharedMemPerBlock} optin=${d.sharedMemPerBlockOptin} ` +
          `mem=${(m.total / 2 ** 30).toFixed(1)} GiB free=${(m.free / 2 ** 30).toFixed(1)} GiB driver=${cuda.driverVersionString()}`,
      );
    },
  },
  {
    name: "NDArray: round trips, fill, device copy, dispose",
    run() {
      const before = cuda.liveAllocations();
      const host = randomUniform(100_003, 7);
      const a = NDArray.from(host, { shape: [100_003] });
      assert.deepEqual(a.toTypedArray(), host);
      const i32 = Int32Array.from({ length: 1000 }, (_, i) => i * 7919 - 3_000_000);
      const b = NDArray.from(i32);
      assert.equal(b.dtype, "int32");
      assert.deepEqual(b.toTypedArray(), i32);
      const f64a = Float64Array.from({ length: 777 }, (_, i) => Math.sin(i) * 1e300);
      using c = NDArray.from(f64a, { shape: [7, 111] });
      assert.deepEqual(c.shape, [7, 111]);
      assert.deepEqual(c.toTypedArray(), f64a);
      const big = BigInt64Array.from({ length: 33 }, (_, i) => BigInt(i) * -(2n ** 40n));
      const d = NDArray.from(big);
      assert.deepEqual(d.toTypedArray(), big);
      d.fill(5n);
      assert.ok(d.toTypedArray().every((x) => x === 5n));
      a.fill(Number.NaN);
      assert.ok(a.toTypedArray().every((x) => Number.isNaN(x)));
      a.fill(1.25);
      assert.ok(a.toTypedArray().every((x) => x === 1.25));
      const h = NDArray.full([9], "float16", 1.5);
      assert.ok(h.toTypedArray().every((x) => x === 0x3e00));
      const u8 = NDArray.full([13], "uint8", 255);
      assert.ok(u8.toTypedArray().every((x) => x === 255));
      const e = NDArray.empty([100_003], "float32");
      e.copyFromArray(a.fill(3));
      assert.ok(e.toTypedArray().every((x) => x === 3));
      assert.ok(cuda.liveAllocations().count >= before.count + 7);
      for (const x of [a, b, d, h, u8, e]) x.dispose();
      a.dispose(); // idempotent
      assert.throws(() => a.toTypedArray(), /disposed/);
      c[Symbol.dispose]();
      assert.equal(c.disposed, true);
      assert.equal(cuda.liveAllocations().count, before.count);
      assert.throws(() => NDArray.from(new Float32Array(3), { dtype: "int32" }), /cannot hold/);
    },
  },
  {
    name: "NDArray: finalizer frees forgotten arrays",
    async run(log) {
      setFlagsFromString("--expose-gc");
      const gc = runInNewContext("gc") as () => void;
      const before = cuda.liveAllocations().count;
      (() => {
        for (let i = 0; i < 50; i++) NDArray.empty([1 << 20], "float32");
      })();
      assert.equal(cuda.liveAllocations().count, before + 50);
      for (let i = 0; i < 20 && cuda.liveAllocations().count > before; i++) {
        gc();
        await new Promise((r) => setImmediate(r));
      }
      log(`live after gc: ${cuda.liveAllocations().count - before} of 50`);
      assert.equal(cuda.liveAllocations().count, before);
    },
  },
  {
    name: "NVRTC: cubin for the device (ptxas -v), PTX for compute_75 (JIT), parallel compiles, cache",
    async run(log) {
      const s = nvrtcStatus();
      assert.ok(s.ok, `NVRTC unavailable: ${s.reason}`);
      const arch = cuda.device(0).arch;
      vaddCubin = await compileCuda(VADD, { backend: "nvrtc", ptxasVerbose: true, cache: false });
      assert.equal(vaddCubin.target, arch);
      assert.deepEqual([...vaddCubin.image.subarray(0, 4)], [0x7f, 0x45, 0x4c, 0x46]);
      const fn = vaddCubin.ptxas?.functions.find((f) => f.name === "vadd");
      log(`${s.version}; vadd ${arch}: ${JSON.stringify(fn)}; log: ${JSON.stringify(vaddCubin.log.slice(0, 300))}`);
      assert.ok(fn !== undefined && fn.registers > 0, "ptxas -v report through NVRTC");
      const ptx = await compileCuda(VADD, { backend: "nvrtc", arch: "compute_75", output: "ptx", cache: false });
      assert.equal(ptx.target, "compute_75");
      const text = new TextDecoder().decode(ptx.image);
      assert.match(text, /\.target sm_75/);
      using mod = loadModule(ptx);
      const k = mod.getKernel("vadd");
      const x = NDArray.from(randomUniform(1000, 1));
      const y = NDArray.from(randomUniform(1000, 2));
      const z = NDArray.full([1000], "float32", Number.NaN);
      k.launch({ grid: 4, block: 256 }, [x, y, z, 1000]);
      const zx = z.toTypedArray();
      const xs = x.toTypedArray();
      const ys = y.toTypedArray();
      for (let i = 0; i < 1000; i++) assert.equal(zx[i], Math.fround((xs[i] as number) + (ys[i] as number)));
      for (const a of [x, y, z]) a.dispose();
      // 8 variants in parallel (libuv pool), then again from the cache.
      const variants = Array.from({ length: 8 }, (_, v) => VADD.replace("a[i] + b[i]", `a[i] + b[i] * ${v + 1}.0f`));
      const t0 = performance.now();
      const compiled = await Promise.all(variants.map((src) => compileCuda(src, { backend: "nvrtc", cache: false })));
      const parallelMs = performance.now() - t0;
      const one = vaddCubin.compileMs;
      log(`8 parallel NVRTC compiles: ${parallelMs.toFixed(0)} ms (one alone: ${one.toFixed(0)} ms)`);
      assert.equal(compiled.length, 8);
      const dir = `${process.env.TMPDIR ?? "/tmp"}/tessera-selftest-cache-${process.pid}`;
      const c1 = await compileCuda(VADD, { backend: "nvrtc", cache: dir });
      const c2 = await compileCuda(VADD, { backend: "nvrtc", cache: dir });
      assert.equal(c1.cacheHit, false);
      assert.equal(c2.cacheHit, true);
      log(`cache hit: ${c2.compileMs.toFixed(2)} ms vs miss ${c1.compileMs.toFixed(1)} ms`);
      const err = await expectReject(compileCuda("__global__ void broken( {", { backend: "nvrtc", cache: false }));
      assert.ok(err instanceof CompileError, String(err));
      assert.match(err.log, /error/);
    },
  },
  {
    name: "launch: vector add, typed scalars, >48 KiB dynamic shared memory (alone and with static bytes), metadata",
    async run(log) {
      assert.ok(vaddCubin !== undefined);
      using mod = loadModule(vaddCubin);
      const k = mod.getKernel("vadd");
      const attrs = k.attributes();
      log(`vadd attributes ${JSON.stringify(attrs)}`);
      assert.ok(attrs.numRegs > 0);
      const n = (1 << 20) + 3;
      const xs = randomUniform(n, 3);
      const ys = randomUniform(n, 4);
      using x = NDArray.from(xs);
      using y = NDArray.from(ys);
      using z = NDArray.full([n], "float32", Number.NaN);
      k.launch({ grid: Math.ceil(n / 256), block: 256 }, [x, y, z, n]);
      const zs = z.toTypedArray();
      for (let i = 0; i < n; i++) if (zs[i] !== Math.fround((xs[i] as number) + (ys[i] as number))) assert.fail(`vadd mismatch at ${i}`);
      // launch from metadata
      const meta: LaunchMetadata = {
        name: "vadd",
        grid: [Math.ceil(n / 128), 1, 1],
        block: [128, 1, 1],
        dynamicSharedBytes: 0,
        params: [
          { name: "a", kind: "buffer", dtype: "float32" },
          { name: "b", kind: "buffer", dtype: "float32" },
          { name: "c", kind: "buffer", dtype: "float32" },
          { name: "n", kind: "scalar", dtype: "int32" },
        ],
      };
      z.fill(Number.NaN);
      mod.getKernel("vadd", meta).launch(undefined, [x, y, z, n]);
      assert.ok(z.toTypedArray().every((v, i) => v === Math.fround((xs[i] as number) + (ys[i] as number))));
      {
        const c = await compileCuda(SCALARS + BIG_SHARED, { cache: false });
        using m2 = loadModule(c);
        using out = NDArray.full([4], "float64", Number.NaN);
        m2.getKernel("scalars").launch({ grid: 1, block: 1 }, [out, f32(1.5), f64(1e-300), i64(-(2n ** 40n)), -7]);
        assert.deepEqual([...out.toTypedArray()], [1.5, 1e-300, -(2 ** 40), -7]);
        const words = 24 * 1024; // 96 KiB of shared memory
        const bytes = words * 4;
        assert.ok(cuda.device(0).sharedMemPerBlockOptin >= bytes);
        const src = randomUniform(words, 9);
        using i = NDArray.from(src);
        using o = NDArray.full([words], "float32", Number.NaN);
        m2.getKernel("big_shared").launch({ grid: 1, block: 1024, dynamicSharedBytes: bytes }, [i, o, words]);
        const os = o.toTypedArray();
        for (let j = 0; j < words; j++) if (os[j] !== (src[words - 1 - j] as number) * 2) assert.fail(`big_shared mismatch at ${j}`);
      }
      {
        // Regression (session 16): 48 KiB of dynamic shared memory and 24 static bytes failed to
        // launch (CUDA_ERROR_INVALID_VALUE): the dynamic maximum was raised only above 48 KiB.
        const c = await compileCuda(STATIC_AND_DYNAMIC, { cache: false });
        using m3 = loadModule(c);
        const words = 12 * 1024;
        const src = randomUniform(words, 11);
        using i = NDArray.from(src);
        using o = NDArray.full([words], "float32", Number.NaN);
        m3.getKernel("static_and_dynamic").launch({ grid: 1, block: 256, dynamicSharedBytes: words * 4 }, [i, o, words]);
        const os = o.toTypedArray();
        for (let j = 0; j < words; j++) if (os[j] !== Math.fround((src[words - 1 - j] as number) + (j % 3))) assert.fail(`static_and_dynamic mismatch at ${j}`);
      }
    },
  },
  {
    name: "errors by name: bad launch config, missing kernel",
    run() {
      assert.ok(vaddCubin !== undefined);
      using mod = loadModule(vaddCubin);
      const k = mod.getKernel("vadd");
      using x = NDArray.empty([16], "float32");
      const e = expectThrow(() => k.launch({ grid: 1, block: 2048 }, [x, x, x, 16]));
      assert.ok(e instanceof CudaError, String(e));
      assert.equal(e.code, "CUDA_ERROR_INVALID_VALUE");
      assert.equal(e.cudaCall, "cuLaunchKernel");
      assert.equal(e.kernel, "vadd");
      assert.match(e.message, /CUDA_ERROR_INVALID_VALUE.*cuLaunchKernel.*vadd/);
      const e2 = expectThrow(() => mod.getKernel("no_such_kernel"));
      assert.ok(e2 instanceof CudaError, String(e2));
      assert.equal(e2.code, "CUDA_ERROR_NOT_FOUND");
      assert.equal(e2.cudaCall, "cuModuleGetFunction");
      cuda.synchronize(); // the context is still healthy
    },
  },
  {
    name: "timeEvaluator: CUDA-event timing of a native launch loop",
    async run(log) {
      assert.ok(vaddCubin !== undefined);
      using mod = loadModule(vaddCubin);
      const n = 1 << 24;
      using x = NDArray.from(randomUniform(n, 5));
      using y = NDArray.from(randomUniform(n, 6));
      using z = NDArray.empty([n], "float32");
      const bound = mod.getKernel("vadd").bind({ grid: n / 256, block: 256 }, [x, y, z, n]);
      const r = await timeEvaluator(bound, { number: 3, repeat: 5, minRepeatMs: 20 });
      log(`vadd 2^24: median ${r.median.toFixed(4)} ms (number=${r.number}, std ${r.std.toFixed(4)})`);
      assert.equal(r.samples.length, 5);
      assert.ok(r.min > 0 && r.min <= r.median && r.median <= r.max);
      assert.ok(r.number * r.min >= 20 * 0.9, "samples were grown to minRepeatMs");
    },
  },
  {
    name: "nvcc backend on the GPU machine: cubin loads and runs",
    async run(log) {
      if ((await nvccVersion()) === undefined) {
        log("SKIPPED: nvcc not found");
        return;
      }
      const c = await compileCuda(VADD, { backend: "nvcc", ptxasVerbose: true, cache: false });
      log(`nvcc cubin ${c.target} in ${c.compileMs.toFixed(0)} ms; ptxas ${JSON.stringify(c.ptxas?.functions[0])}`);
      using mod = loadModule(c);
      using x = NDArray.full([64], "float32", 2);
      using z = NDArray.full([64], "float32", Number.NaN);
      mod.getKernel("vadd").launch({ grid: 1, block: 64 }, [x, x, z, 64]);
      assert.ok(z.toTypedArray().every((v) => v === 4));
    },
  },
  {
    name: "build(): the corpus on the cuda device matches the sequential executor (cuda target and an older named target as PTX)",
    async run(log) {
      for (const entry of scheduleCorpus()) {
        for (const target of ["cuda", "nvidia/tesla-t4"]) {
          const mod = await build(entry.build(), target, { device: "cuda", cacheDir: false });
          const args = randomArgs(entry.original(), 5);
          const out = args.length - 1;
          (args[out] as TypedArray).fill(Number.NaN);
          const expected = args.map((a) => a.slice() as TypedArray);
          compilePrimFunc(entry.original()).run(expected);
          const device = args.map((a, i) => {
            const p = mod.params[i];
            return NDArray.from(a as Float32Array, { shape: p?.kind === "buffer" ? p.shape : [a.length] });
          });
          try {
            mod(...device);
            const got = (device[out] as NDArray).toTypedArray() as Float32Array;
            const ref = expected[out] as Float32Array;
            let bad = 0;
            for (let i = 0; i < ref.length; i++) if (!(Math.abs((got[i] as number) - (ref[i] as number)) <= 1e-4 + 1e-4 * Math.abs(ref[i] as number))) bad++;
            assert.equal(bad, 0, `${entry.name} (${target}): ${bad} of ${ref.length} outputs wrong`);
            const e = expectThrow(() => mod(...args));
            assert.ok(e instanceof ModuleArgumentError, String(e));
            assert.match(e.message, /argument 0 \(A\).*the cuda device takes NDArrays/);
            const t = await mod.timeEvaluator({ number: 1, repeat: 3, minRepeatMs: 0 })(...device);
            assert.equal(t.clock, "cuda-events");
            log(`${entry.name} (${target}: ${mod.compiled?.output} ${mod.compiled?.target}): ${mod.kernels.length} kernel(s), ${t.median.toFixed(4)} ms`);
          } finally {
            for (const d of device) d.dispose();
            mod.dispose();
          }
        }
      }
    },
  },
  {
    name: "asynchronous error by name: out-of-bounds kernel → CUDA_ERROR_ILLEGAL_ADDRESS (last: breaks the context)",
    async run(log) {
      const c = await compileCuda(OOB, { cache: false });
      const mod = loadModule(c);
      const out = NDArray.empty([32], "float32");
      mod.getKernel("oob").launch({ grid: 1, block: 32 }, [out]);
      const e = expectThrow(() => cuda.synchronize());
      assert.ok(e instanceof CudaError, String(e));
      log(e.message);
      assert.equal(e.code, "CUDA_ERROR_ILLEGAL_ADDRESS");
      assert.equal(e.cudaCall, "cuCtxSynchronize");
      assert.equal(e.kernel, "oob");
    },
  },
];
