/**
 * The wgmma GEMM (Hopper's wgmma.mma_async through shared-memory descriptors) lowers through the
 * CUDA pipeline: each thread keeps its warp's N/2 accumulator registers; injectWgmmaSync fences
 * each run of wgmmas once and waits before every barrier (leaving the last k stage's groups in
 * flight inside the pipelined k loop) and before the accumulator's store; its
 * CUDA needs sm_90a (CudaModule.requiredArch), aligns the dynamic shared memory to the swizzle's
 * 1024-byte atoms and fences the async proxy after the cp.async waits; any target but sm_90 is
 * refused by name.
 */
import { WGMMA_PARAMS, type WgmmaGemmParams, wgmmaGemmSchedule } from "@tessera/corpus";
import { type Allocate, type Stmt, forEachExpr, forEachStmt, printExpr } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { CodegenError, codegenCuda } from "../../src/cuda/index.js";
import { WGMMA_FENCE, WGMMA_MMA_ASYNC, WGMMA_WAIT_GROUP, lower } from "../../src/index.js";

/** 128×128 tiles of two warpgroups, 3 stages: the registers, offsets and strides below are theirs (WGMMA_PARAMS has N = 256). */
const TILING: WgmmaGemmParams = { warpgroups: 2, n: 128, pipelineStages: 3 };
const module = lower(wgmmaGemmSchedule(512, TILING), "nvidia/h100");
const kernel = module.kernels[0]!;

const op = (s: Stmt | undefined): string | undefined => (s?.kind === "Evaluate" && s.value.kind === "Call" ? s.value.op : undefined);

/** The statements of every sequence in the kernel, each with the one before it. */
function pairs(body: Stmt): [Stmt | undefined, Stmt][] {
  const out: [Stmt | undefined, Stmt][] = [];
  forEachStmt(body, (s) => {
    if (s.kind === "SeqStmt") s.seq.forEach((x, i) => out.push([s.seq[i - 1], x]));
  });
  return out;
}

describe("lowering the wgmma GEMM", () => {
  it("gives each thread its warp's 64 accumulator registers (16×128 of the warpgroup's 64×128)", () => {
    const allocs: Allocate[] = [];
    forEachStmt(kernel.body, (s) => {
      if (s.kind === "Allocate" && s.buffer.scope === "local") allocs.push(s);
    });
    expect(allocs.map((a) => `${a.buffer.name}:${printExpr(a.buffer.shape[0]!)}`)).toEqual(["C_warp:64"]);
    const offsets: string[] = [];
    forEachExpr(kernel.body, (e) => {
      if (e.kind === "Call" && e.op === WGMMA_MMA_ASYNC) offsets.push(printExpr(e.args[14]!));
    });
    expect(new Set(offsets)).toEqual(new Set(["0"]));
  });

  it("waits for the wgmmas before every barrier and before the store, and fences each run of them once", () => {
    const seqs = pairs(kernel.body);
    const barriers = seqs.filter(([, s]) => op(s) === "tvm_storage_sync");
    expect(barriers.length).toBeGreaterThan(0);
    for (const [before] of barriers) expect(op(before)).toBe(WGMMA_WAIT_GROUP);
    // One fence per k stage: before the loop of its wgmmas, none inside it.
    const fences = seqs.filter(([, s]) => op(s) === WGMMA_FENCE);
    const loops = seqs.filter(([before]) => op(before) === WGMMA_FENCE).map(([, s]) => s);
    expect(fences.length).toBe(loops.length);
    for (const loop of loops) {
      expect(loop.kind).toBe("For");
      forEachStmt(loop, (s) => expect(op(s)).not.toBe(WGMMA_FENCE));
    }
    const source = codegenCuda(module).source;
    const store = source.indexOf("tessera_mma_store_16x16_f32(C");
    expect(source.lastIndexOf("tessera_wgmma_wait_group<0>(); tessera_wgmma_written<64>(C_warp + 0);", store)).toBeGreaterThan(
      source.lastIndexOf("tessera_wgmma_m64n128k16", store),
    );
  });

  it("generates CUDA for sm_90a: descriptors, 1024-byte aligned dynamic shared memory, fence.proxy.async after the cp.async waits", () => {
    const cuda = codegenCuda(module);
    expect(cuda.requiredArch).toBe("sm_90a");
    expect(cuda.source).toMatch(/extern __shared__ __align__\(1024\) __half buf_dyn_shmem\[\];/);
    expect(cuda.source).toMatch(/wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.f16\.f16/);
    expect(cuda.source).toMatch(/tessera_cp_async_wait_group<\d>\(\);\n\s*asm volatile\("fence\.proxy\.async\.shared::cta;\\n" ::: "memory"\);/);
    // A's SBO: 8 rows of 64 fp16; B's LBO: one 64-column panel of 64 k rows (8192 bytes), SBO: its 8-row atom.
    expect(cuda.source).toMatch(/tessera_wgmma_m64n128k16_f32_f16_f16\(C_warp \+ 0, [^;]*, 16, 1024, [^;]*, 8192, 1024, true\);/);
    const byDefault = codegenCuda(lower(wgmmaGemmSchedule(512, WGMMA_PARAMS), "nvidia/h200"));
    expect(byDefault.requiredArch).toBe("sm_90a");
    // WGMMA_PARAMS: 64×256 per warpgroup, B's four panels as N = 128's two; one stage in flight at the k loop's barriers too.
    expect(byDefault.source).toMatch(/tessera_wgmma_m64n256k16_f32_f16_f16\(C_warp \+ 0, [^;]*, 16, 1024, [^;]*, 8192, 1024, true\);/);
    expect(byDefault.source).toMatch(/tessera_wgmma_wait_group<4>\(\);[^\n]*\n\s*__syncthreads\(\);/);
  });

  it("refuses any target but sm_90, naming the intrinsic and the target", () => {
    for (const [t, arch] of [
      ["nvidia/a100", "sm_80"],
      ["cuda -arch=sm_100 -max_shared_memory_per_block=232448", "sm_100"],
    ] as const) {
      const lowered = lower(wgmmaGemmSchedule(256, WGMMA_PARAMS), t);
      expect(() => codegenCuda(lowered)).toThrow(CodegenError);
      expect(() => codegenCuda(lowered)).toThrow(
        new RegExp(`wgmma\\.mma_async \\(T\\.ptx\\.wgmma_mma_async_ss\\) exists only on sm_90a \\(Hopper\\); target .* is ${arch}`),
      );
    }
  });

  it("fetches one stage ahead into 3 versions and keeps the last stage's four wgmma groups in flight at the k loop's barriers", () => {
    const source = codegenCuda(module).source;
    const loop = source.slice(source.indexOf("for (int k_0_0 = 0;"), source.indexOf("tessera_mma_store_16x16_f32(C"));
    const steady = loop.slice(0, loop.indexOf("\n  }\n"));
    // Both barriers of an iteration wait with the wgmmas of the stage before still pending; the copies write version (k + 1) % 3.
    expect(steady.match(/tessera_wgmma_wait_group<(\d)>\(\);[^\n]*\n\s*__syncthreads\(\);/g)?.map((w) => w.match(/<(\d)>/)![1])).toEqual(["4", "4"]);
    expect(steady).toMatch(/tessera_cp_async_16\(buf_dyn_shmem \+ \(*\(\(k_0_0 \+ 1\) % 3\) \* 8192\)/);
    expect(steady).toMatch(/\(k_0_0 % 3\) \* 8192/);
    // After the loop: all groups retired before the epilogue's barrier and before the store.
    expect(loop.slice(steady.length).match(/tessera_wgmma_wait_group<(\d)>/g)).toEqual(["tessera_wgmma_wait_group<0>", "tessera_wgmma_wait_group<0>"]);
  });

  it("with the wgmmas before the copies: one barrier per k stage, the last stage's four groups in flight at it", () => {
    const source = codegenCuda(lower(wgmmaGemmSchedule(512, { ...TILING, wgmmaBeforeCopies: true }), "nvidia/h100")).source;
    const loop = source.slice(source.indexOf("for (int k_0_0 = 0;"), source.indexOf("tessera_mma_store_16x16_f32(C"));
    const steady = loop.slice(0, loop.indexOf("\n  }\n"));
    // The stage's wgmmas (reading version k % 3) go first, then the copies of version (k + 1) % 3,
    // which threadSync proves need no barrier between them (a wgmma's pointer covers its operand only).
    expect(steady.match(/tessera_wgmma_wait_group<(\d)>\(\);[^\n]*\n\s*__syncthreads\(\);/g)?.map((w) => w.match(/<(\d)>/)![1])).toEqual(["4"]);
    expect(steady.match(/__syncthreads/g)).toHaveLength(1);
    expect(steady).toMatch(/tessera_cp_async_16\(buf_dyn_shmem \+ \(*\(\(k_0_0 \+ 1\) % 3\) \* 8192\)/);
    expect(steady).toMatch(/\(k_0_0 % 3\) \* 8192/);
    expect(steady.indexOf("__syncthreads")).toBeLessThan(steady.indexOf("tessera_wgmma_m64n128k16"));
    expect(steady.indexOf("tessera_wgmma_m64n128k16")).toBeLessThan(steady.indexOf("tessera_cp_async_16"));
    // After the loop: all groups retired before the epilogue's barrier and before the store.
    expect(loop.slice(steady.length).match(/tessera_wgmma_wait_group<(\d)>/g)).toEqual(["tessera_wgmma_wait_group<0>", "tessera_wgmma_wait_group<0>"]);
  });

  it("refuses 2 pipeline stages by name: the copies would run no stage ahead of the asynchronous wgmmas", () => {
    expect(() => wgmmaGemmSchedule(256, { ...TILING, pipelineStages: 2 })).toThrow(/wgmmaGemmSchedule: 2 pipeline stages fetch nothing ahead/);
  });
});
