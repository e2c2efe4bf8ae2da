/**
 * Dynamic shared memory: a kernel's `shared.dyn` buffers merged into one `extern __shared__`
 * allocation (16-byte aligned slices), its size in the launch metadata, checked against the
 * target's opt-in limit rather than the 48 KiB of static shared memory.
 */
import { FAST_PARAMS, SMALL_FAST_PARAMS, SMALL_MMA_PARAMS, asyncPipeline, fastSchedule, mmaGemmSchedule } from "@tessera/corpus";
import { type Buffer, type PrimExpr, type Stmt, forEachExpr, forEachStmt } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { LoweringError, codegenCuda, lower, target } from "../../src/index.js";

function allocations(body: Stmt): Buffer[] {
  const out: Buffer[] = [];
  forEachStmt(body, (s) => {
    if (s.kind === "Allocate" && s.buffer.scope.startsWith("shared")) out.push(s.buffer);
  });
  return out;
}

describe("shared.dyn allocations", () => {
  it("A and B tiles become slices of one dynamic allocation, B's at a 16-byte aligned offset", () => {
    // 64×8 A tile (rows padded to 68 floats) and 8×64 B tile, three versions each.
    const module = lower(fastSchedule(128, { ...SMALL_FAST_PARAMS, fetch: "async", pipeline: asyncPipeline(3), sharedScope: "shared.dyn" }), "nvidia/h100");
    const kernel = module.kernels[0]!;
    const shared = allocations(kernel.body);
    expect(shared.map((b) => [b.name, b.scope])).toEqual([["buf_dyn_shmem", "shared.dyn"]]);
    const aFloats = 3 * 8 * 68 - 4; // the last row needs no padding
    const bOffset = Math.ceil(aFloats / 4) * 4;
    expect(kernel.launch.dynamicSharedBytes).toBe(4 * (bOffset + 3 * 8 * 64));
    expect(kernel.sharedBytes).toBe(0);
    const cuda = codegenCuda(module);
    expect(cuda.source).toContain("extern __shared__ __align__(16) float buf_dyn_shmem[];");
    expect(cuda.source).toContain(`+ ${bOffset})`);
    expect(cuda.kernels[0]!.dynamicSharedBytes).toBe(kernel.launch.dynamicSharedBytes);
  });

  it("more than 48 KiB passes on an H100 (227 KiB opt-in) and is rejected where the target has no opt-in", () => {
    // 256×128 tiles, k chunks of 16, three async stages, padded A: 74480 bytes.
    const schedule = () => fastSchedule(2048, { ...FAST_PARAMS, tileK: 16, fetch: "async", pipeline: asyncPipeline(3), sharedScope: "shared.dyn" });
    expect(lower(schedule(), "nvidia/h100").kernels[0]!.launch.dynamicSharedBytes).toBe(74480);
    const generic = target("cuda", { overrides: { arch: "sm_90" } });
    expect(() => lower(schedule(), generic)).toThrow(LoweringError);
    expect(() => lower(schedule(), generic)).toThrow(/uses 74480 bytes of shared memory \(74480 dynamic\); cuda allows 49152 per block/);
  });

  it("pointers into a slice (ldmatrix's T.tvm_access_ptr) point into the merged allocation at the slice's offset", () => {
    // Regression: a shared.dyn tile read by ldmatrix was refused ("used other than by loads, stores and cp.async").
    // 32×32 A tiles (rows padded to 40 halves) and 32×32 B tiles, three versions each.
    const module = lower(mmaGemmSchedule(64, { ...SMALL_MMA_PARAMS, pipelineStages: 3 }), "nvidia/h100");
    const kernel = module.kernels[0]!;
    expect(allocations(kernel.body).map((b) => b.name)).toEqual(["buf_dyn_shmem"]);
    const aHalves = 3 * 32 * 40 - 8; // the last row needs no padding
    const bOffset = Math.ceil(aHalves / 8) * 8;
    expect(kernel.launch.dynamicSharedBytes).toBe(2 * (bOffset + 3 * 32 * 40 - 8));
    // The buffers pointed into: C (the accumulator's store) and the merged allocation (ldmatrix), no slice.
    const pointedInto = new Set<string>();
    forEachExpr(kernel.body, (e: PrimExpr) => {
      if (e.kind === "Call" && e.op === "tvm_access_ptr" && e.args[1]?.kind === "Var") pointedInto.add(e.args[1].name);
    });
    expect([...pointedInto].sort()).toEqual(["C", "buf_dyn_shmem"]);
    // B's ldmatrix.trans reads from B's slice.
    expect(codegenCuda(module).source).toMatch(new RegExp(`tessera_ldmatrix_x4_trans\\([^;]*\\+ ${bOffset}\\)`));
  });
});
