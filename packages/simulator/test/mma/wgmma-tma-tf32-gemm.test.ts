/**
 * The TMA wgmma GEMM for tf32 (corpus: tmaWgmmaTf32Plan — a transposing pre-pass writes Bᵀ, then
 * tmaWgmmaGemmScript with `operands: "tf32"`: one producer thread loads A's 128×32 and Bᵀ's 256×32
 * float32 boxes a stage, two consumer warpgroups of m64n256k8 tf32 wgmmas) in the simulator: the
 * executor's bits of `truncatingTf32Gemm` at 256³ (the wgmmas truncate the raw float32 as the
 * tensor cores do), and a broken hand-over is caught.
 */
import {
  type TmaWgmmaOptions,
  type TmaWgmmaTf32RegisterBOptions,
  tf32Gemm,
  tf32GemmConverting,
  tmaWgmmaTf32Plan,
  tmaWgmmaTf32RegisterBScript,
  truncatingTf32Gemm,
} from "@tessera/corpus";
import { cudaTarget, moduleFromKernelFunc, moduleFromKernelFuncs } from "@tessera/codegen";
import { type PrimFunc, parsePrimFunc, printTVMScript } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { compareWithReference } from "../../src/index.js";
import { expectExactAgreement } from "../exact-agreement.js";

const H100 = cudaTarget("nvidia/h100");
type Options = Omit<TmaWgmmaOptions, "operands">;

/** The plan at n with `edit` applied to the GEMM kernel's script. */
function module(n: number, opts: Options, edit: (s: string) => string = (s) => s) {
  const plan = tmaWgmmaTf32Plan(n, opts);
  const [transpose, gemm] = plan.kernels;
  const edited = { ...gemm!, func: parsePrimFunc(edit(printTVMScript(gemm!.func))) };
  return moduleFromKernelFuncs({ ...plan, kernels: [transpose!, edited] }, { target: H100 });
}

function compare(n: number, opts: Options, edit?: (s: string) => string, reference = truncatingTf32Gemm(n)) {
  return compareWithReference(module(n, opts, edit), reference, { seed: 7, rtol: 0, atol: 0 });
}

describe("the TMA wgmma tf32 GEMM", () => {
  // 256³ is 8 k stages of 32: both ring sizes refill their slots.
  for (const stages of [2, 3]) {
    it(`has the executor's bits of the truncating tf32 GEMM at 256³ with ${stages} stages`, () => {
      expectExactAgreement(compare(256, { stages }));
    }, 180_000);
  }

  it("has the executor's bits as a persistent kernel in the rasterised order (one block walks both tiles, its ring running on)", () => {
    expectExactAgreement(compare(256, { stages: 3, persistentBlocks: 1, groupRows: 2 }));
  }, 180_000);

  it("has the executor's bits with 128-row consumers (256×128 tiles, two m64n128k8 a k step), persistent, with setmaxnreg", () => {
    expectExactAgreement(compare(256, { stages: 3, consumerRows: 128, persistentBlocks: 1, maxRegisters: { producer: 40, consumer: 232 } }));
  }, 180_000);

  it("computes the truncation, not tf32Gemm's rounding: against the rounding function its bits differ", () => {
    expect(compare(256, { stages: 2 }, undefined, tf32Gemm(256)).mismatchCount).toBeGreaterThan(0);
  }, 180_000);

  it("refuses a consumer that does not wait for its stage's full barrier", () => {
    const early = (s: string) =>
      s.replace(/\n( +)T\.ptx\.mbarrier_wait_parity\(T\.tvm_access_ptr\(T\.type_annotation\("uint64"\), bars, t % 2, 1, 3\), t \/\/ 2 % 2\)/, "");
    const script = printTVMScript(tmaWgmmaTf32Plan(256, { stages: 2 }).kernels[1]!.func);
    expect(early(script)).not.toBe(script);
    expect(() => compare(256, { stages: 2 }, early)).toThrow(/SimulationError|kernel wgmma_tma_tf32_gemm_kernel_1, block \(0, 0, 0\)/);
  }, 180_000);

  it("refuses a producer that does not wait for the consumers to release a slot", () => {
    const eager = (s: string) =>
      s.replace(/\n( +)T\.ptx\.mbarrier_wait_parity\(T\.tvm_access_ptr\(T\.type_annotation\("uint64"\), bars, 2 \+ t % 2, 1, 3\), \(t \/\/ 2 \+ 1\) % 2\)/, "");
    const script = printTVMScript(tmaWgmmaTf32Plan(256, { stages: 2 }).kernels[1]!.func);
    expect(eager(script)).not.toBe(script);
    expect(() => compare(256, { stages: 2 }, eager)).toThrow(
      /wait on bars\[0\] for parity 0 passed with 3 phases completed[\s\S]*missing its wait for the stage to be free/,
    );
  }, 180_000);

  it("computes other bits when Bᵀ's box lands without the swizzle the descriptors assume", () => {
    const unswizzled = (s: string) => s.replace(/Bt\.data, 32, 256, 128,/g, "Bt.data, 32, 256, 0,");
    expect(compare(256, { stages: 2 }, unswizzled).mismatchCount).toBeGreaterThan(0);
  }, 180_000);
});

describe("the TMA tf32 GEMM with B from registers (Cᵀ = Bᵀ·Aᵀ, no pre-pass)", () => {
  const reference = (n: number) => tf32GemmConverting(n, { a: "truncate", b: "round" });
  function compareRb(n: number, opts: TmaWgmmaTf32RegisterBOptions, edit: (s: string) => string = (s) => s) {
    const module = moduleFromKernelFunc(parsePrimFunc(edit(tmaWgmmaTf32RegisterBScript(n, opts))), { target: H100 });
    return compareWithReference(module, reference(n), { seed: 7, rtol: 0, atol: 0 });
  }

  it("takes A, B and C as the n×n buffers of its reference (regression: C was flat, which the runtime refused for n×n arrays)", () => {
    const source = moduleFromKernelFunc(parsePrimFunc(tmaWgmmaTf32RegisterBScript(256)), { target: H100 }).source;
    const shapes = (f: PrimFunc) => f.params.map((p) => f.bufferMap.get(p)?.shape.map((e) => (e.kind === "IntImm" ? e.value : e.kind)));
    expect(shapes(source)).toEqual(shapes(reference(256)));
  });

  it("has the executor's bits of trunc(A)·round(B) at 256³ with 2 and 3 stages", () => {
    expectExactAgreement(compareRb(256, { stages: 2 }));
    expectExactAgreement(compareRb(256, { stages: 3 }));
  }, 180_000);

  it("has the executor's bits as a persistent kernel (one block walks both tiles, its ring and fragment sets running on across them)", () => {
    expectExactAgreement(compareRb(256, { stages: 3, persistentBlocks: 1, groupRows: 1 }));
  }, 180_000);

  it("a persistent kernel whose consumers do not release a tile's last stage deadlocks, naming the barrier", () => {
    const opts = { stages: 3, persistentBlocks: 1 };
    const unreleased = (s: string) => s.replace(/ {16}if threadIdx_x == 0:\n {20}T\.ptx\.mbarrier_arrive\(.*\(it \* 8 \+ 7\).*\n/, "");
    expect(unreleased(tmaWgmmaTf32RegisterBScript(256, opts))).not.toBe(tmaWgmmaTf32RegisterBScript(256, opts));
    // The next tile's third stage (stream index 10, slot 1) waits for slot 1's release: empty barrier bars[3 + 1].
    expect(() => compareRb(256, opts, unreleased)).toThrow(/deadlock[\s\S]*bars\[4\]/);
  }, 180_000);

  it("refuses fragments that are not rounded to tf32, and computes other bits when B's boxes land unswizzled", () => {
    const unrounded = (s: string) => s.replace(/= T\.tf32_round\((buf_dyn_shmem_1\[.*\])\)\n/, "= $1\n");
    expect(unrounded(tmaWgmmaTf32RegisterBScript(256, { stages: 2 }))).not.toBe(tmaWgmmaTf32RegisterBScript(256, { stages: 2 }));
    expect(() => compareRb(256, { stages: 2 }, unrounded)).toThrow(/A register \d holds .*, not a tf32 value/);
    const unswizzled = (s: string) => s.replaceAll(/B\.data, 32, 32, 128,/g, "B.data, 32, 32, 0,");
    expect(compareRb(256, { stages: 2 }, unswizzled).mismatchCount).toBeGreaterThan(0);
  }, 180_000);

  it("fragment loads before the stage's full wait read the slot before its boxes land: other bits", () => {
    // The first stage's wait moved after its fragment loads.
    const early = (s: string) =>
      s.replace(
        /( +)(T\.ptx\.mbarrier_wait_parity\(T\.tvm_access_ptr\(T\.type_annotation\("uint64"\), bars, \(t2 \* 2 \+ 0\) % 2, 1, 3\), .*\))\n((?:\1.*\n){3})/,
        "$3$1$2\n",
      );
    const script = tmaWgmmaTf32RegisterBScript(256, { stages: 2 });
    expect(early(script)).not.toBe(script);
    // Not an error (the simulator does not flag a plain read that the async proxy's later write races with), but wrong.
    expect(compareRb(256, { stages: 2 }, early).mismatchCount).toBeGreaterThan(0);
  }, 180_000);
});
