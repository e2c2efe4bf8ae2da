/** The target model: target strings resolve to one member of the union, bad strings are clear errors. */
import { describe, expect, it } from "vitest";
import { TARGET_NAMES, TargetError, cTarget, cudaTarget, isCTarget, isCudaTarget, target, targetKindOf } from "../../src/index.js";

describe("target strings", () => {
  it("resolve to the kind their first word names", () => {
    expect(target("nvidia/a100")).toMatchObject({ kind: "cuda", name: "nvidia/a100", arch: "sm_80" });
    expect(target("cuda")).toMatchObject({ kind: "cuda", name: "cuda", arch: "sm_75" });
    expect(target("llvm -mcpu=znver3")).toMatchObject({ kind: "c", name: "llvm -mcpu=znver3", march: "znver3" });
    expect(target("webgpu")).toMatchObject({ kind: "webgpu", name: "webgpu", maxThreadsPerBlock: 256 });
    expect(target("apple/m1-gpu")).toMatchObject({ kind: "metal", name: "apple/m1-gpu" });
    expect(TARGET_NAMES).toEqual([
      "nvidia/tesla-t4",
      "nvidia/a100",
      "nvidia/h100",
      "nvidia/h200",
      "cuda",
      "c",
      "llvm",
      "webgpu",
      "metal",
      "apple/m1-gpu",
      "apple/m2-gpu",
    ]);
  });

  it("apply TVM's CUDA options to the named or generic target", () => {
    const t = cudaTarget("cuda -arch=sm_90 -max_threads_per_block=512 -max_shared_memory_per_block=32768");
    expect(t).toMatchObject({ name: "cuda -arch=sm_90 -max_threads_per_block=512 -max_shared_memory_per_block=32768", arch: "sm_90" });
    expect([t.maxThreadsPerBlock, t.maxSharedMemoryPerBlock, t.maxThreadsPerMultiProcessor]).toEqual([512, 32768, 2048]);
    expect(cudaTarget("nvidia/h100 -max_num_threads=256")).toMatchObject({ model: "H100 SXM", maxThreadsPerBlock: 256 });
    // Options given in the string and as overrides combine; the overrides win.
    expect(cudaTarget("cuda -arch=sm_80", { overrides: { arch: "sm_86" } }).arch).toBe("sm_86");
  });

  it("keep the name of a target without options, so modules and databases match as before", () => {
    expect(cudaTarget("nvidia/tesla-t4").name).toBe("nvidia/tesla-t4");
    expect(cudaTarget("  nvidia/tesla-t4  ").name).toBe("nvidia/tesla-t4");
  });

  it("are TargetErrors naming the problem when malformed", () => {
    expect(() => target("")).toThrow(/empty target string/);
    expect(() => target("rocm")).toThrow(/unknown target "rocm"; known targets: nvidia\/tesla-t4, .*, cuda, c, llvm/);
    expect(() => target("cuda sm_90")).toThrow(/option "sm_90" is not of the form -key=value/);
    expect(() => target("cuda -arch=sm90")).toThrow(/invalid overrides: arch: an architecture such as sm_75/);
    expect(() => target("cuda -warp=64")).toThrow(
      /CUDA target "cuda -warp=64": unknown option -warp \(known: -arch, -max_threads_per_block, -max_num_threads, -max_shared_memory_per_block\)/,
    );
    expect(() => target("cuda -max_threads_per_block=many")).toThrow(/invalid overrides: max_threads_per_block: .*expected number/);
    expect(() => target("c -mcpu=a;rm")).toThrow(TargetError);
    // An option named like an Object.prototype member is unknown too.
    expect(() => target("cuda -constructor=1")).toThrow(/unknown option -constructor/);
  });

  it("narrow to one kind, or say which kind was given instead", () => {
    expect(isCudaTarget(target("cuda"))).toBe(true);
    expect(isCTarget(target("cuda"))).toBe(false);
    expect(isCTarget(target("c"))).toBe(true);
    expect(() => cudaTarget("c", undefined, "the simulator")).toThrow('the simulator needs a CUDA target, but "c" is a c target');
    expect(() => cTarget("nvidia/a100", "buildC")).toThrow('buildC needs a C target, but "nvidia/a100" is a cuda target');
    expect(cTarget(target("llvm")).march).toBe("native");
  });

  it("tell a string's kind without resolving it", () => {
    expect(["nvidia/h200", "cuda -arch=sm_90", "c -num-cores=2", "llvm", "webgpu -max_num_threads=1024", "metal", "rocm"].map(targetKindOf)).toEqual([
      "cuda",
      "cuda",
      "c",
      "c",
      "webgpu",
      "metal",
      undefined,
    ]);
  });
});
