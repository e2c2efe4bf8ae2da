import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cacheKey, CompileCache, CompileError, compileCuda, compilerArgs, nvccVersion, parseArch, parsePtxasVerbose, ptxText } from "@tessera/runtime";

const KERNEL = `
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void tile(float* out) {
  __shared__ float t[256];
  t[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = t[255 - threadIdx.x];
}
`;

const hasNvcc = (await nvccVersion()) !== undefined;
/** Diagnostics print only with TESSERA_TEST_VERBOSE=1 (README, Testing). */
const VERBOSE = process.env.TESSERA_TEST_VERBOSE === "1";
if (!hasNvcc && VERBOSE) console.warn("[@tessera/runtime] nvcc not found: skipping the nvcc compile tests");

const cacheDir = mkdtempSync(join(tmpdir(), "tessera-cache-test-"));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

describe("parseArch", () => {
  it("accepts the usual spellings", () => {
    expect(parseArch("sm_90")).toEqual({ number: "90", sm: "sm_90", compute: "compute_90" });
    expect(parseArch("compute_75").sm).toBe("sm_75");
    expect(parseArch(86).compute).toBe("compute_86");
    expect(parseArch([8, 0]).sm).toBe("sm_80");
    expect(parseArch("sm_90a").compute).toBe("compute_90a");
    expect(() => parseArch("hopper")).toThrow(/invalid GPU architecture/);
  });
});

describe("compilerArgs", () => {
  it("names an architecture-specific target (sm_90a) to nvcc in the -gencode form, a plain one with -arch", () => {
    expect(compilerArgs("nvcc", "sm_90a", { output: "cubin", ptxasVerbose: true })).toEqual(["-gencode=arch=compute_90a,code=sm_90a", "-Xptxas", "-v"]);
    expect(compilerArgs("nvcc", "sm_90", {})).toEqual(["-arch=sm_90"]);
    expect(compilerArgs("nvrtc", "sm_90a", {})).toEqual(["--gpu-architecture=sm_90a"]);
  });
});

describe("parsePtxasVerbose", () => {
  it("reads the CUDA 13 format", () => {
    const log = `ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'smem' for 'sm_90'
ptxas info    : Function properties for smem
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 20 registers, used 1 barriers, 4096 bytes smem
ptxas info    : Compile time = 23.869 ms
ptxas info    : Compiling entry function 'vadd' for 'sm_90'
ptxas info    : Function properties for vadd
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers
ptxas info    : Compile time = 1.302 ms`;
    const r = parsePtxasVerbose(log);
    expect(r.gmemBytes).toBe(0);
    expect(r.functions).toEqual([
      {
        name: "smem",
        arch: "sm_90",
        registers: 20,
        barriers: 1,
        sharedBytes: 4096,
        stackFrameBytes: 0,
        spillStoreBytes: 0,
        spillLoadBytes: 0,
        compileTimeMs: 23.869,
      },
      {
        name: "vadd",
        arch: "sm_90",
        registers: 12,
        barriers: 0,
        sharedBytes: 0,
        stackFrameBytes: 0,
        spillStoreBytes: 0,
        spillLoadBytes: 0,
        compileTimeMs: 1.302,
      },
    ]);
  });

  it("reads the older format with cmem and spills", () => {
    const log = `ptxas info    : Compiling entry function '_Z4gemmPfS_S_' for 'sm_75'
ptxas info    : Function properties for _Z4gemmPfS_S_
    64 bytes stack frame, 24 bytes spill stores, 28 bytes spill loads
ptxas info    : Used 255 registers, 16384 bytes smem, 376 bytes cmem[0], 8 bytes cmem[2]`;
    const [f] = parsePtxasVerbose(log).functions;
    expect(f).toMatchObject({
      name: "_Z4gemmPfS_S_",
      arch: "sm_75",
      registers: 255,
      sharedBytes: 16384,
      constBytes: 376,
      stackFrameBytes: 64,
      spillStoreBytes: 24,
      spillLoadBytes: 28,
    });
  });
});

describe("compile cache", () => {
  const base = { backend: "nvcc" as const, compilerVersion: "13.0", source: "x", options: ["-arch=sm_90"], output: "cubin" as const };
  it("keys on source, options, output, backend and compiler version", () => {
    const k = cacheKey(base);
    expect(k).toMatch(/^[0-9a-f]{64}$/);
    expect(cacheKey({ ...base })).toBe(k);
    expect(cacheKey({ ...base, source: "y" })).not.toBe(k);
    expect(cacheKey({ ...base, options: ["-arch=sm_75"] })).not.toBe(k);
    expect(cacheKey({ ...base, options: ["-arch=sm_90", "-lineinfo"] })).not.toBe(k);
    expect(cacheKey({ ...base, output: "ptx" })).not.toBe(k);
    expect(cacheKey({ ...base, backend: "nvrtc" })).not.toBe(k);
    expect(cacheKey({ ...base, compilerVersion: "12.8" })).not.toBe(k);
  });

  it("round-trips entries on disk", async () => {
    const cache = new CompileCache(join(cacheDir, "rt"));
    expect(await cache.get("nope")).toBeUndefined();
    await cache.put("abc", { image: new Uint8Array([1, 2, 3]), log: "hello" });
    const e = await cache.get("abc");
    expect(e && [...e.image]).toEqual([1, 2, 3]);
    expect(e?.log).toBe("hello");
  });
});

describe.skipIf(!hasNvcc)(hasNvcc ? "nvcc backend" : "nvcc backend (SKIPPED: nvcc not on PATH)", () => {
  for (const arch of ["sm_75", "sm_90"]) {
    it(`compiles to cubin for ${arch} with a ptxas report`, async () => {
      const r = await compileCuda(KERNEL, { arch, backend: "nvcc", ptxasVerbose: true, cache: false });
      expect(r.backend).toBe("nvcc");
      expect(r.target).toBe(arch);
      expect([...r.image.subarray(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]); // ELF
      const names = r.ptxas?.functions.map((f) => f.name).sort();
      expect(names).toEqual(["tile", "vadd"]);
      const tile = r.ptxas?.functions.find((f) => f.name === "tile");
      expect(tile?.sharedBytes).toBe(1024);
      expect(tile?.registers).toBeGreaterThan(0);
      expect(tile?.arch).toBe(arch);
    });

    it(`compiles to ptx for ${arch.replace("sm_", "compute_")}`, async () => {
      const r = await compileCuda(KERNEL, { arch, output: "ptx", backend: "nvcc", cache: false });
      expect(r.target).toBe(arch.replace("sm_", "compute_"));
      const text = ptxText(r);
      expect(text).toContain(`.target ${arch}`);
      expect(text).toContain(".entry vadd");
    });
  }

  it("reports a syntax error as CompileError with nvcc's log", async () => {
    const err = await compileCuda("this is not CUDA", { arch: "sm_90", backend: "nvcc", cache: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CompileError);
    const ce = err as CompileError;
    expect(ce.backend).toBe("nvcc");
    expect(ce.log).toMatch(/error/);
    expect(ce.message).toContain(ce.log.trim().split("\n")[0] as string);
  });

  it("serves the second compile from the on-disk cache", async () => {
    const dir = join(cacheDir, "nvcc");
    const a = await compileCuda(KERNEL, { arch: "sm_90", backend: "nvcc", cache: dir });
    const b = await compileCuda(KERNEL, { arch: "sm_90", backend: "nvcc", cache: dir });
    expect(a.cacheHit).toBe(false);
    expect(b.cacheHit).toBe(true);
    expect(b.cacheKey).toBe(a.cacheKey);
    expect(Buffer.from(b.image).equals(Buffer.from(a.image))).toBe(true);
    const c = await compileCuda(KERNEL, { arch: "sm_75", backend: "nvcc", cache: dir });
    expect(c.cacheHit).toBe(false);
  });

  it("honours TESSERA_CACHE_DIR", async () => {
    const dir = join(cacheDir, "env");
    const old = process.env.TESSERA_CACHE_DIR;
    process.env.TESSERA_CACHE_DIR = dir;
    try {
      await compileCuda(KERNEL, { arch: "sm_90", output: "ptx", backend: "nvcc" });
      const again = await compileCuda(KERNEL, { arch: "sm_90", output: "ptx", backend: "nvcc", cache: true });
      expect(again.cacheHit).toBe(true);
    } finally {
      if (old === undefined) delete process.env.TESSERA_CACHE_DIR;
      else process.env.TESSERA_CACHE_DIR = old;
    }
  });
});
