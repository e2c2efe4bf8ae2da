/**
 * The warp-specialised wgmma GEMM with TMA loads (corpus: tmaWgmmaGemmScript — one producer thread
 * fills each ring slot with five swizzled boxes, two consumer warpgroups of wgmmas) in the
 * simulator: the executor's bits at 256³, and the mistakes TMA invites are caught.
 */
import { type TmaWgmmaOptions, tmaWgmmaGemmScript, wgmmaGemm } from "@tessera/corpus";
import { cudaTarget, moduleFromKernelFunc } from "@tessera/codegen";
import { parsePrimFunc } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { compareWithReference } from "../../src/index.js";
import { expectExactAgreement } from "../exact-agreement.js";

const H100 = cudaTarget("nvidia/h100");

function compare(n: number, stages: number, edit: (s: string) => string = (s) => s, opts: TmaWgmmaOptions = {}) {
  const module = moduleFromKernelFunc(parsePrimFunc(edit(tmaWgmmaGemmScript(n, { stages, ...opts }))), { target: H100 });
  return compareWithReference(module, wgmmaGemm(n), { seed: 5, rtol: 0, atol: 0 });
}

describe("the TMA wgmma GEMM", () => {
  // 256³ is 4 k stages: both ring sizes refill slots.
  for (const stages of [2, 3]) {
    it(`has the executor's bits at 256³ with ${stages} stages, reusing its ring`, () => {
      expectExactAgreement(compare(256, stages));
    }, 120_000);
  }

  it("has the executor's bits with setmaxnreg and the rasterised block order (groups of 2 block rows)", () => {
    expectExactAgreement(compare(256, 2, undefined, { maxRegisters: { producer: 40, consumer: 232 }, groupRows: 2 }));
  }, 120_000);

  it("has the executor's bits with 128-row consumers (256×128 block tiles, two m64n128k16 a k step), plain and persistent", () => {
    expectExactAgreement(compare(256, 2, undefined, { consumerRows: 128 }));
    expectExactAgreement(compare(256, 3, undefined, { consumerRows: 128, persistentBlocks: 1, maxRegisters: { producer: 40, consumer: 232 } }));
  }, 120_000);

  it("refuses a wait for more than 7 pending wgmma groups, as the hardware and the CUDA generator do (regression: it simulated)", () => {
    const eight = (s: string) => s.replace("T.ptx.wgmma_wait_group(4,", "T.ptx.wgmma_wait_group(8,");
    expect(() => compare(256, 2, eight, { consumerRows: 128 })).toThrow(/wgmma\.wait_group takes 0 to 7 pending groups, not 8/);
  }, 120_000);

  it("has the executor's bits as a persistent kernel: one block walks both tiles, its ring running on across them", () => {
    expectExactAgreement(compare(256, 3, undefined, { persistentBlocks: 1, groupRows: 2 }));
  }, 120_000);

  it("a persistent kernel whose consumers do not release a tile's last stage deadlocks, naming the barrier", () => {
    const unreleased = (s: string) => s.replace(/ {16}if threadIdx_x == 0:\n {20}T\.ptx\.mbarrier_arrive\(.*\(it \* 4 \+ 3\).*\n/, "");
    expect(unreleased(tmaWgmmaGemmScript(256, { stages: 3, persistentBlocks: 1 }))).not.toBe(tmaWgmmaGemmScript(256, { stages: 3, persistentBlocks: 1 }));
    expect(() => compare(256, 3, unreleased, { persistentBlocks: 1 })).toThrow(/deadlock[\s\S]*bars\[3\]/);
  }, 120_000);

  it("refuses a consumer that does not wait for its stage's full barrier", () => {
    const early = (s: string) =>
      s.replace(/ {12}T\.ptx\.mbarrier_wait_parity\(T\.tvm_access_ptr\(T\.type_annotation\("uint64"\), bars, t % 2, 1, 3\), t \/\/ 2 % 2\)\n/, "");
    expect(early(tmaWgmmaGemmScript(256, { stages: 2 }))).not.toBe(tmaWgmmaGemmScript(256, { stages: 2 }));
    expect(() => compare(256, 2, early)).toThrow(/SimulationError|kernel wgmma_tma_gemm_kernel, block \(0, 0, 0\)/);
  }, 120_000);

  it("refuses a producer that expects fewer bytes than its boxes carry: the phase completes with B's boxes in flight", () => {
    const short = (s: string) => s.replaceAll(", 49152)", ", 16384)");
    expect(() => compare(256, 2, short)).toThrow(/(overlaps a bulk copy still in flight|while a copy completing) on bars\[0\]/);
  }, 120_000);

  it("computes other bits when B's boxes land without the swizzle the descriptors assume", () => {
    const unswizzled = (s: string) => s.replaceAll(/B\.data, 64, 64, 128,/g, "B.data, 64, 64, 0,");
    const r = compare(256, 2, unswizzled);
    expect(r.mismatchCount).toBeGreaterThan(0);
  }, 120_000);
});
