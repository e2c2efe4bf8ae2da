/**
 * Bank conflicts reported by the simulator on hand-lowered kernels with known conflict degrees and
 * on the course's manual schedule; the kernels' results are checked too (race detector on).
 */
import { lower } from "@tessera/codegen";
import { manualSchedule } from "@tessera/corpus";
import { gcdInt, gemmReluAdd, randomArgs } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type BankConflictReport, type BankConflictSite, compareWithReference, formatBankConflicts, simulate, warpAccessCost } from "../src/index.js";
import { compileKernel } from "../src/compile-kernel.js";
import { moduleFromLoweredScript } from "./helpers.js";

/** The report's site accessing `text` (exactly) with `access`. */
function site(report: BankConflictReport, access: "load" | "store", text: string): BankConflictSite {
  const found = report.sites.filter((s) => s.access === access && s.text === text);
  expect(found, `${access} ${text} in\n${formatBankConflicts(report)}`).toHaveLength(1);
  return found[0]!;
}

/** Simulates a one-kernel module with races and bank conflicts on; no race allowed. */
function run(script: string, args: Float32Array[] | (Float32Array | Int32Array)[]): BankConflictReport {
  const report = simulate(moduleFromLoweredScript(script), args, { bankConflicts: true });
  expect(report.raceCount).toBe(0);
  return report.bankConflicts!;
}

/** One block of `threads` threads: `S[store] = A[t]`, a barrier, `B[t] = S[load]`. */
function roundTrip(threads: number, shared: number, store: string, load: string): string {
  return `
@T.prim_func
def main(A: T.Buffer((${threads},), "float32"), B: T.Buffer((${threads},), "float32")):
    T.func_attr({"global_symbol": "round_trip", "tir.noalias": T.bool(True)})
    threadIdx_x = T.launch_thread("threadIdx.x", ${threads})
    S = T.allocate([${shared}], "float32", "shared")
    S_1 = T.Buffer((${shared},), data=S, scope="shared")
    S_1[${store}] = A[threadIdx_x]
    T.tvm_storage_sync("shared")
    B[threadIdx_x] = S_1[${load}]
`;
}

function randomFloats(n: number, seed: number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => Math.sin(seed * 1000 + i));
}

describe("32-bit accesses of hand-lowered kernels", () => {
  for (const stride of [1, 2, 32, 33]) {
    const way = gcdInt(stride, 32);
    it(`stride ${stride}: ${way === 1 ? "no conflict" : `${way}-way`} on the store and the load`, () => {
      const index = `threadIdx_x * ${stride}`;
      const A = randomFloats(64, stride);
      const B = new Float32Array(64);
      const report = run(roundTrip(64, 64 * stride, index, index), [A, B]);
      expect(B).toEqual(A);
      for (const access of ["store", "load"] as const) {
        // Two warps, one instruction each.
        expect(site(report, access, `S[${index}]`)).toMatchObject({
          widthBytes: 4,
          instructions: 2,
          wavefronts: 2 * way,
          idealWavefronts: 2,
          conflicts: 2 * (way - 1),
          worstWay: way,
        });
      }
      expect(report.total).toMatchObject({ instructions: 4, wavefronts: 4 * way, conflicts: 4 * (way - 1) });
    });
  }

  it("a warp reading one word is a broadcast; reading two words of one bank is 2-way", () => {
    const A = randomFloats(64, 1);
    const same = new Float32Array(64);
    const broadcast = run(roundTrip(64, 64, "threadIdx_x", "threadIdx_x // 32 * 32"), [A, same]);
    expect(same).toEqual(Float32Array.from({ length: 64 }, (_, t) => A[Math.floor(t / 32) * 32]!));
    expect(site(broadcast, "load", "S[threadIdx_x // 32 * 32]")).toMatchObject({ instructions: 2, wavefronts: 2, conflicts: 0, worstWay: 1 });

    const pairs = new Float32Array(64);
    const twoWords = run(roundTrip(64, 64, "threadIdx_x", "threadIdx_x % 2 * 32"), [A, pairs]);
    expect(pairs).toEqual(Float32Array.from({ length: 64 }, (_, t) => A[(t % 2) * 32]!));
    expect(site(twoWords, "load", "S[threadIdx_x % 2 * 32]")).toMatchObject({ instructions: 2, wavefronts: 4, conflicts: 2, worstWay: 2 });
  });

  it("warps are consecutive linear thread ids, threadIdx.x fastest", () => {
    // Block 16×16 and S[x * 16 + y], as the manual schedule's fetch: a warp is x = 0…15 for two
    // values of y, so eight x of one parity share a bank (8-way). Were y the fastest index, a warp
    // would cover 32 consecutive words.
    const script = `
@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    threadIdx_x = T.launch_thread("threadIdx.x", 16)
    threadIdx_y = T.launch_thread("threadIdx.y", 16)
    S = T.allocate([256], "float32", "shared")
    S_1 = T.Buffer((256,), data=S, scope="shared")
    S_1[threadIdx_x * 16 + threadIdx_y] = A[threadIdx_y * 16 + threadIdx_x]
    T.tvm_storage_sync("shared")
    B[threadIdx_y * 16 + threadIdx_x] = S_1[threadIdx_x * 16 + threadIdx_y]
`;
    const A = randomFloats(256, 2);
    const B = new Float32Array(256);
    const report = run(script, [A, B]);
    expect(B).toEqual(A);
    expect(site(report, "store", "S[threadIdx_x * 16 + threadIdx_y]")).toMatchObject({ instructions: 8, wavefronts: 64, worstWay: 8 });
  });

  it("threads that skip an access are inactive lanes, and warps with no active lane issue nothing", () => {
    const script = `
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    threadIdx_x = T.launch_thread("threadIdx.x", 64)
    S = T.allocate([2048], "float32", "shared")
    S_1 = T.Buffer((2048,), data=S, scope="shared")
    for k in range(32):
        S_1[k * 64 + threadIdx_x] = A[threadIdx_x]
    T.tvm_storage_sync("shared")
    B[threadIdx_x] = T.float32(0)
    if threadIdx_x < 8:
        B[threadIdx_x] = S_1[threadIdx_x * 32]
    for k in range(threadIdx_x % 4):
        B[threadIdx_x] = B[threadIdx_x] + S_1[threadIdx_x * 32 + k]
`;
    const A = randomFloats(64, 3);
    const B = new Float32Array(64);
    const report = run(script, [A, B]);
    // Element t * 32 + k is in row (t * 32 + k) // 64, holding A[(t * 32 + k) % 64].
    const expected = Array.from({ length: 64 }, (_, t) => {
      let sum = Math.fround(t < 8 ? A[(t * 32) % 64]! : 0);
      for (let k = 0; k < t % 4; k++) sum = Math.fround(sum + A[(t * 32 + k) % 64]!);
      return sum;
    });
    expect(B).toEqual(Float32Array.from(expected));
    // Only warp 0 loads, with lanes 0–7, all in bank 0.
    expect(site(report, "load", "S[threadIdx_x * 32]")).toMatchObject({ instructions: 1, wavefronts: 8, idealWavefronts: 1, worstWay: 8 });
    // Lane t runs the loop t % 4 times: in each warp, execution 0 has 24 active lanes, execution 1
    // has 16 and execution 2 has 8, each lane on its own word of bank k.
    expect(site(report, "load", "S[threadIdx_x * 32 + k]")).toMatchObject({
      instructions: 6,
      wavefronts: 2 * (24 + 16 + 8),
      idealWavefronts: 6,
      worstWay: 24,
    });
  });
});

/**
 * A 128×8 tile of A (row-major) is read with float4 loads and stored transposed into
 * `As[k][m]` with rows of `row` floats, then read back with float4 loads along m: B = Aᵀ. The
 * transposed store is a stride-`row` Ramp, which the CUDA generator emits as four scalar stores.
 */
function transposedTile(row: number, store: "ramp" | "loop"): string {
  const storeStmt =
    store === "ramp"
      ? `    As_1[T.Ramp(threadIdx_x % 2 * ${4 * row} + threadIdx_x // 2, ${row}, 4)] = A[T.Ramp(threadIdx_x * 4, 1, 4)]`
      : `    for j in range(4):
        As_1[(threadIdx_x % 2 * 4 + j) * ${row} + threadIdx_x // 2] = A[threadIdx_x * 4 + j]`;
  return `
@T.prim_func
def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
    threadIdx_x = T.launch_thread("threadIdx.x", 256)
    As = T.allocate([${8 * row}], "float32", "shared")
    As_1 = T.Buffer((${8 * row},), data=As, scope="shared")
${storeStmt}
    T.tvm_storage_sync("shared")
    B[T.Ramp(threadIdx_x * 4, 1, 4)] = As_1[T.Ramp(threadIdx_x // 32 * ${row} + threadIdx_x % 32 * 4, 1, 4)]
`;
}

describe("vector accesses", () => {
  for (const row of [128, 132]) {
    for (const store of ["ramp", "loop"] as const) {
      it(`transposed tile, rows of ${row} floats, stored by ${store === "ramp" ? "a strided Ramp" : "a loop"}`, () => {
        const A = randomFloats(1024, row);
        const B = new Float32Array(1024);
        const report = run(transposedTile(row, store), [A, B]);
        expect(B).toEqual(Float32Array.from({ length: 1024 }, (_, i) => A[(i % 128) * 8 + Math.floor(i / 128)]!));
        // Lanes 2m' and 2m'+1 store rows m and columns k and k + 4 (words (k + j) * row + m):
        // unpadded, rows 128 ≡ 0 mod 32 apart put both words in bank m (2-way); padded to 132,
        // they are 16 banks apart. 8 warps × 4 scalar stores.
        const way = row === 128 ? 2 : 1;
        const stores = report.sites.filter((s) => s.access === "store");
        expect(stores).toHaveLength(1);
        expect(stores[0]).toMatchObject({ widthBytes: 4, instructions: 32, wavefronts: 32 * way, idealWavefronts: 32, worstWay: way });
        // The float4 load: each quarter-warp reads 32 consecutive words, 8 warps × 4 quarters.
        const load = report.sites.find((s) => s.access === "load")!;
        expect(load).toMatchObject({ widthBytes: 16, instructions: 8, wavefronts: 32, idealWavefronts: 32, conflicts: 0, worstWay: 1 });
      });
    }
  }

  it("a float4 load striding two float4s is 2-way in each quarter-warp; a float2 load of consecutive float2s is conflict-free", () => {
    const script = `
@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((128,), "float32"), C: T.Buffer((64,), "float32")):
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
    S = T.allocate([256], "float32", "shared")
    S_1 = T.Buffer((256,), data=S, scope="shared")
    S_1[T.Ramp(threadIdx_x * 8, 1, 8)] = A[T.Ramp(threadIdx_x * 8, 1, 8)]
    T.tvm_storage_sync("shared")
    B[T.Ramp(threadIdx_x * 4, 1, 4)] = S_1[T.Ramp(threadIdx_x * 8, 1, 4)]
    C[T.Ramp(threadIdx_x * 2, 1, 2)] = S_1[T.Ramp(threadIdx_x * 2, 1, 2)]
`;
    const A = randomFloats(256, 4);
    const [B, C] = [new Float32Array(128), new Float32Array(64)];
    const report = run(script, [A, B, C]);
    expect(B).toEqual(Float32Array.from({ length: 128 }, (_, i) => A[Math.floor(i / 4) * 8 + (i % 4)]!));
    expect(C).toEqual(A.slice(0, 64));
    expect(site(report, "load", "S[T.Ramp(threadIdx_x * 8, 1, 4)]")).toMatchObject({
      widthBytes: 16,
      instructions: 1,
      wavefronts: 8,
      idealWavefronts: 4,
      worstWay: 2,
    });
    expect(site(report, "load", "S[T.Ramp(threadIdx_x * 2, 1, 2)]")).toMatchObject({
      widthBytes: 8,
      instructions: 1,
      wavefronts: 2,
      idealWavefronts: 2,
      worstWay: 1,
    });
    // float32x8 has no CUDA vector type: eight scalar stores; lane l of thread t stores word 8t + l,
    // in bank 8(t % 4) + l for every t: 8-way.
    expect(site(report, "store", "S[T.Ramp(threadIdx_x * 8, 1, 8)]")).toMatchObject({ widthBytes: 4, instructions: 8, wavefronts: 64, worstWay: 8 });
  });
});

describe("through the whole simulator, the model sees what each warp accessed", () => {
  /** Threads load S[P[t]] from a shared copy of A. */
  const gather = `
@T.prim_func
def main(P: T.Buffer((64,), "int32"), A: T.Buffer((256,), "float32"), B: T.Buffer((64,), "float32")):
    threadIdx_x = T.launch_thread("threadIdx.x", 64)
    S = T.allocate([256], "float32", "shared")
    S_1 = T.Buffer((256,), data=S, scope="shared")
    for f in range(4):
        S_1[f * 64 + threadIdx_x] = A[f * 64 + threadIdx_x]
    T.tvm_storage_sync("shared")
    B[threadIdx_x] = S_1[P[threadIdx_x]]
`;
  const module = moduleFromLoweredScript(gather);
  const A = randomFloats(256, 5);

  function gatherLoad(P: Int32Array): BankConflictSite {
    const B = new Float32Array(64);
    const report = simulate(module, [P, A, B], { bankConflicts: true });
    expect(B).toEqual(Float32Array.from(P, (p) => A[p]!));
    return site(report.bankConflicts!, "load", "S[P[threadIdx_x]]");
  }

  it("each warp reading any permutation of 32 consecutive words is conflict-free", () => {
    const permutation = fc.shuffledSubarray([...Array(32).keys()], { minLength: 32, maxLength: 32 });
    fc.assert(
      fc.property(permutation, permutation, fc.nat({ max: 192 }), (p0, p1, base) => {
        const load = gatherLoad(Int32Array.from([...p0, ...p1.map((k) => 32 + k)], (k) => base + k));
        expect(load).toMatchObject({ instructions: 2, wavefronts: 2, conflicts: 0 });
      }),
      { numRuns: 40 },
    );
  });

  it("on any indices, the site's totals are the model's costs of the two warps' accesses", () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 255 }), { minLength: 64, maxLength: 64 }), (indices) => {
        const warps = [indices.slice(0, 32), indices.slice(32)].map((w) =>
          warpAccessCost(
            w.map((i) => i * 4),
            4,
            "load",
          ),
        );
        const load = gatherLoad(Int32Array.from(indices));
        expect(load.wavefronts).toBe(warps[0]!.wavefronts + warps[1]!.wavefronts);
        expect(load.worstWay).toBe(Math.max(warps[0]!.way, warps[1]!.way));
        expect(load.wavefronts).toBeGreaterThanOrEqual(load.idealWavefronts);
      }),
      { numRuns: 40 },
    );
  });
});

describe("the course's manual schedule at 256³", () => {
  // Grid 4×4 of 16×16 threads (8 warps), 4 k chunks of 64, 4 fetch rounds per tile, a 4×4 register tile.
  const blocks = 16;
  const warps = 8;
  const chunks = 4;
  const kSteps = 64;

  it("its shared loads of A are 16-way, its loads of B conflict-free, its stores 8-way", () => {
    const module = lower(manualSchedule(256).func, "nvidia/tesla-t4");
    const comparison = compareWithReference(module, gemmReluAdd(256).func, { seed: 3, simulation: { bankConflicts: true } });
    expect(comparison.passed).toBe(true);
    const report = comparison.simulation.bankConflicts!;
    expect(comparison.simulation.kernels[0]!.bankConflicts).toEqual(report);
    // A_shared[threadIdx_x * 256 + ax0 * 64 + k]: the 16 threadIdx_x of a warp read words 256
    // apart, all in one bank.
    const aLoad = site(report, "load", "A_shared[threadIdx_x * 256 + ax0 * 64 + k_1_0]");
    expect(aLoad).toMatchObject({ instructions: blocks * warps * chunks * kSteps * 4, worstWay: 16 });
    expect(aLoad.wavefronts).toBe(16 * aLoad.instructions);
    // B_shared[k * 64 + threadIdx_y * 4 + ax0]: a warp has two threadIdx_y, two words in two banks.
    const bLoad = site(report, "load", "B_shared[k_1_0 * 64 + threadIdx_y * 4 + ax0]");
    expect(bLoad).toMatchObject({ instructions: aLoad.instructions, wavefronts: aLoad.instructions, conflicts: 0, worstWay: 1 });
    for (const tile of ["A_shared", "B_shared"]) {
      const store = site(report, "store", `${tile}[ax0_ax1_fused_0 * 256 + threadIdx_x * 16 + threadIdx_y]`);
      expect(store).toMatchObject({ instructions: blocks * warps * chunks * 16, worstWay: 8 });
      expect(store.wavefronts).toBe(8 * store.instructions);
    }
    expect(report.loads.wavefronts / report.loads.instructions).toBe(8.5);
  });

  it("with the B fetch vectorized, as nvcc compiles it, it matches Nsight Compute's counters on an H100", () => {
    // nvcc merges the four scalar B_shared loads of a k step into one LDS.128 (cuobjdump shows 4 LDS
    // and 1 LDS.128 per k step); vectorizing the fetch gives that instruction mix in the IR.
    // Nsight Compute on an H100 (sm_90), for this kernel at 256³ (shared loads; stores):
    const ncu = { loads: { instructions: 163_840, wavefronts: 2_162_880 }, stores: { instructions: 16_384, wavefronts: 131_072, conflicts: 114_688 } };
    const sch = manualSchedule(256);
    const fetch = sch.getLoops(sch.getBlock("B_shared_local"));
    sch.vectorize(fetch[fetch.length - 1]!);
    const module = lower(sch.func, "nvidia/tesla-t4");
    const comparison = compareWithReference(module, gemmReluAdd(256).func, { seed: 4, simulation: { bankConflicts: true } });
    expect(comparison.passed).toBe(true);
    const report = comparison.simulation.bankConflicts!;
    // The float4 B load is read by the 16 threadIdx_x of a half-warp alike: its lanes pair up,
    // so it takes 2 wavefronts, not 4. Per k step and warp: 4 A loads × 16 + 2 = 66 wavefronts in 5 instructions.
    const bLoad = report.sites.find((s) => s.access === "load" && s.buffer === "B_shared")!;
    expect(bLoad).toMatchObject({ widthBytes: 16, instructions: blocks * warps * chunks * kSteps, conflicts: 0 });
    expect(bLoad.wavefronts).toBe(2 * bLoad.instructions);
    expect(report.loads.instructions).toBe(ncu.loads.instructions);
    expect(report.loads.wavefronts / report.loads.instructions).toBeCloseTo(66 / 5, 10);
    // Nsight Compute counted 192 wavefronts more than the model (0.01%), all of them as conflicts.
    expect(Math.abs(report.loads.wavefronts - ncu.loads.wavefronts) / ncu.loads.wavefronts).toBeLessThan(1e-4);
    expect(report.stores).toMatchObject(ncu.stores);
  });
});

describe("the model is opt-in", () => {
  it("without bankConflicts the generated code records nothing and the report has no bank section", () => {
    const module = lower(manualSchedule(64, { tileX: 32, tileY: 32, tileK: 16, threadTileX: 4, threadTileY: 4, threadTileK: 1 }).func, "nvidia/tesla-t4");
    const kernel = module.kernels[0]!;
    for (const detectRaces of [true, false]) {
      expect(compileKernel(kernel, { detectRaces }).source).not.toContain("$banks");
      expect(compileKernel(kernel, { detectRaces, bankConflicts: true }).source).toContain("$banks.record(");
    }
    const args = randomArgs(module.source, 0);
    const report = simulate(module, args);
    expect(report.bankConflicts).toBeUndefined();
    expect(report.kernels[0]!.bankConflicts).toBeUndefined();
    expect(simulate(module, args, { bankConflicts: true }).bankConflicts!.total.instructions).toBeGreaterThan(0);
  });

  it("formats a table with one row per site and the totals", () => {
    const A = randomFloats(64, 6);
    const report = run(roundTrip(64, 128, "threadIdx_x * 2", "threadIdx_x"), [A, new Float32Array(64)]);
    const lines = formatBankConflicts(report).split("\n");
    expect(lines[0]).toBe("shared-memory bank conflicts (32 banks of 4 B; warp-level accesses of all blocks):");
    expect(lines[1]).toMatch(/^ {2}access\s+op\s+bytes\s+instructions\s+wavefronts\s+ideal\s+conflicts\s+wavefronts\/instr\s+worst$/);
    expect(lines[2]).toBe("  kernel kernel_kernel:");
    expect(lines[3]).toMatch(/^ {4}S\[threadIdx_x \* 2\]\s+store\s+4\s+2\s+4\s+2\s+2\s+2\.00\s+2-way$/);
    expect(lines[4]).toMatch(/^ {4}S\[threadIdx_x\]\s+load\s+4\s+2\s+2\s+2\s+0\s+1\.00\s+1-way$/);
    expect(lines.slice(5)).toEqual([
      expect.stringMatching(/^ {2}loads\s+2\s+2\s+2\s+0\s+1\.00\s+1-way$/),
      expect.stringMatching(/^ {2}stores\s+2\s+4\s+2\s+2\s+2\.00\s+2-way$/),
      expect.stringMatching(/^ {2}total\s+4\s+6\s+4\s+2\s+1\.50\s+2-way$/),
      "",
    ]);
  });
});
