import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { halfHeaderOptions } from "../src/compile/half-headers.js";

describe("NVRTC include path for cuda_fp16.h / cuda_bf16.h", () => {
  const toolkit = mkdtempSync(join(tmpdir(), "tessera-cuda-include-"));
  writeFileSync(join(toolkit, "cuda_fp16.h"), "");
  afterAll(() => rmSync(toolkit, { recursive: true, force: true }));

  it("adds -I<folder> only for sources that include a 16-bit float header", () => {
    const env = { TESSERA_CUDA_INCLUDE: toolkit };
    expect(halfHeaderOptions("#include <cuda_fp16.h>\n__global__ void k() {}", env)).toEqual([`-I${toolkit}`]);
    expect(halfHeaderOptions("#include <cuda_bf16.h>\n", env)).toEqual([`-I${toolkit}`]);
    // WMMA kernels include mma.h, which lives in the toolkit's include folder too.
    expect(halfHeaderOptions("#include <mma.h>\n", env)).toEqual([`-I${toolkit}`]);
    expect(halfHeaderOptions("__global__ void k(float* a) {}", env)).toEqual([]);
  });

  it("adds the toolkit's cccl folder beside it when there is one", () => {
    const withCccl = mkdtempSync(join(tmpdir(), "tessera-cuda-include-cccl-"));
    try {
      writeFileSync(join(withCccl, "cuda_fp16.h"), "");
      mkdirSync(join(withCccl, "cccl"));
      expect(halfHeaderOptions("#include <cuda_fp16.h>\n", { TESSERA_CUDA_INCLUDE: withCccl })).toEqual([`-I${withCccl}`, `-I${join(withCccl, "cccl")}`]);
    } finally {
      rmSync(withCccl, { recursive: true, force: true });
    }
  });

  it("skips folders without the header (NVRTC's built-in copies are then the only hope)", () => {
    const env = { TESSERA_CUDA_INCLUDE: join(toolkit, "missing"), CUDA_HOME: join(toolkit, "nowhere") };
    const options = halfHeaderOptions("#include <cuda_fp16.h>\n", env);
    expect(options.every((o) => o !== `-I${join(toolkit, "missing")}` && o !== `-I${join(toolkit, "nowhere", "include")}`)).toBe(true);
  });
});
