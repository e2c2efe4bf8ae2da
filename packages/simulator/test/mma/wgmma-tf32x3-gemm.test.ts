/**
 * 3xTF32 on the tf32 wgmma (wgmmaTf32x3GemmSchedule / …ReluAddSchedule: pre-passes writing the
 * tf32 hi and lo parts of Bᵀ (and with `registerA: false` of A; by default A is split into hi and
 * lo in registers and read by the register-A wgmma), three m64nNk8 wgmmas per 8-wide k step into a chunk
 * accumulator added into the main one after each 32-k stage) in the simulator. The simulator runs
 * the three wgmmas as the hardware issues them, each summing its 8 k in turn, so the kernel's
 * float32 sums are those of the instruction order — lo·hi, hi·lo, hi·hi per k step — not the
 * function's per-k `(lo·hi + hi·lo) + hi·hi`: the kernel is checked bit for bit against that
 * order written out here (`threeWgmmaOrder`), and against the executor within float32 rounding of
 * the sums.
 */
import { type LoweredModule, WGMMA_MMA_ASYNC, WGMMA_MMA_ASYNC_RS, lower } from "@tessera/codegen";
import {
  SMALL_WGMMA_TF32X3_PARAMS,
  WGMMA_TF32X3_CHUNK,
  WGMMA_TF32X3_PARAMS,
  tf32x3Gemm,
  tf32x3GemmReluAdd,
  wgmmaTf32x3GemmReluAddSchedule,
  wgmmaTf32x3GemmSchedule,
} from "@tessera/corpus";
import { compilePrimFunc, forEachExpr, forEachStmt, randomArgs, roundToTF32 } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { simulate } from "../../src/index.js";

const N = 128;
const K_STEP = 8;
const f = Math.fround;

/** D = A·B (or max(A·B, 0) + C) summed as the kernel's three wgmmas per k step and its chunk adds, in float32. */
function threeWgmmaOrder(n: number, a: Float32Array, b: Float32Array, c?: Float32Array): Float32Array {
  const split = (x: Float32Array) => {
    const hi = x.map(roundToTF32);
    return { hi, lo: x.map((v, i) => roundToTF32(f(v - hi[i]!))) };
  };
  const [A, B] = [split(a), split(b)];
  const out = new Float32Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      let main = 0;
      for (let k0 = 0; k0 < n; k0 += WGMMA_TF32X3_CHUNK) {
        let chunk = 0;
        for (let step = k0; step < k0 + WGMMA_TF32X3_CHUNK; step += K_STEP)
          for (const [x, y] of [
            [A.lo, B.hi],
            [A.hi, B.lo],
            [A.hi, B.hi],
          ] as const)
            for (let k = step; k < step + K_STEP; k++) chunk = f(chunk + f(x[i * n + k]! * y[k * n + j]!));
        main = f(main + chunk);
      }
      out[i * n + j] = c === undefined ? main : f(Math.max(main, 0) + c[i * n + j]!);
    }
  return out;
}

function run(module: LoweredModule, n: number, reluAdd: boolean, seed: number) {
  const original = reluAdd ? tf32x3GemmReluAdd(n, WGMMA_TF32X3_CHUNK) : tf32x3Gemm(n, WGMMA_TF32X3_CHUNK);
  const args = randomArgs(original, seed, { low: -2, high: 2 }) as Float32Array[];
  const out = reluAdd ? 3 : 2;
  const [executor, simulated] = [args.map((x) => x.slice()), args.map((x) => x.slice())];
  executor[out]!.fill(Number.NaN);
  simulated[out]!.fill(Number.NaN);
  compilePrimFunc(original).run(executor);
  const report = simulate(module, simulated);
  const model = threeWgmmaOrder(n, args[0]!, args[1]!, reluAdd ? args[2] : undefined);
  let [modelBits, executorMax, scale] = [0, 0, 0];
  for (let i = 0; i < n * n; i++) {
    if (!Object.is(model[i], simulated[out]![i])) modelBits++;
    executorMax = Math.max(executorMax, Math.abs(simulated[out]![i]! - executor[out]![i]!));
    scale = Math.max(scale, Math.abs(executor[out]![i]!));
  }
  return { modelBits, executorMax, scale, races: report.raceCount };
}

describe("3xTF32 on the tf32 wgmma in the simulator", () => {
  it("gemm 128³, one warpgroup, no pipeline: the three-wgmma order bit for bit, the executor's within float32 rounding", () => {
    const r = run(lower(wgmmaTf32x3GemmSchedule(N, SMALL_WGMMA_TF32X3_PARAMS), "nvidia/h100"), N, false, 3);
    expect(r).toEqual({ ...r, modelBits: 0, races: 0 });
    expect(r.executorMax).toBeGreaterThan(0);
    expect(r.executorMax).toBeLessThan(r.scale * 2 ** -19);
  });

  it("gemm+ReLU+add 256³ with WGMMA_TF32X3_PARAMS (two warpgroups, 3 cp.async stages: 8 k stages, the pipeline's steady state)", () => {
    const r = run(lower(wgmmaTf32x3GemmReluAddSchedule(256, WGMMA_TF32X3_PARAMS), "nvidia/h100"), 256, true, 5);
    expect(r).toEqual({ ...r, modelBits: 0, races: 0 });
    expect(r.executorMax).toBeLessThan(r.scale * 2 ** -19);
  });

  it("A from shared memory (registerA: false, session 13's kernel): gemm 128³ and gemm+ReLU+add 256³ with WGMMA_TF32X3_PARAMS, the three-wgmma order bit for bit", () => {
    const small = run(lower(wgmmaTf32x3GemmSchedule(N, { ...SMALL_WGMMA_TF32X3_PARAMS, registerA: false }), "nvidia/h100"), N, false, 3);
    expect(small).toEqual({ ...small, modelBits: 0, races: 0 });
    const r = run(lower(wgmmaTf32x3GemmReluAddSchedule(256, { ...WGMMA_TF32X3_PARAMS, registerA: false }), "nvidia/h100"), 256, true, 5);
    expect(r).toEqual({ ...r, modelBits: 0, races: 0 });
    expect(r.executorMax).toBeLessThan(r.scale * 2 ** -19);
  });

  it.each([
    { registerA: false, oneBPass: false, kernels: 5, op: WGMMA_MMA_ASYNC },
    { registerA: true, oneBPass: false, kernels: 3, op: WGMMA_MMA_ASYNC_RS },
    { registerA: true, oneBPass: true, kernels: 2, op: WGMMA_MMA_ASYNC_RS },
  ])(
    "issues three wgmmas per 8-wide k step in one committed group (registerA $registerA, oneBPass $oneBPass: $kernels kernels, $op)",
    ({ registerA, oneBPass, kernels, op }) => {
      const module = lower(wgmmaTf32x3GemmSchedule(N, { ...SMALL_WGMMA_TF32X3_PARAMS, registerA, oneBPass }), "nvidia/h100");
      const gemm = module.kernels.at(-1)!;
      let [wgmmas, commits] = [0, 0];
      forEachExpr(gemm.body, (e) => {
        if (e.kind === "Call" && (e.op === WGMMA_MMA_ASYNC || e.op === WGMMA_MMA_ASYNC_RS)) wgmmas += e.op === op ? 1 : 100;
        if (e.kind === "Call" && e.op === "ptx.wgmma_commit_group") commits++;
      });
      expect(module.kernels).toHaveLength(kernels);
      expect([wgmmas, commits]).toEqual([3, 1]);
    },
  );

  it("one pre-pass kernel writes B's hi and lo parts transposed from one read of B (a 32×32 shared tile per block)", () => {
    const module = lower(wgmmaTf32x3GemmSchedule(N, SMALL_WGMMA_TF32X3_PARAMS), "nvidia/h100");
    const prepass = module.kernels[0]!;
    const [loaded, stored] = [new Map<string, number>(), new Set<string>()];
    forEachExpr(prepass.body, (e) => {
      if (e.kind === "BufferLoad") loaded.set(e.buffer.name, (loaded.get(e.buffer.name) ?? 0) + 1);
    });
    forEachStmt(prepass.body, (st) => {
      if (st.kind === "BufferStore") stored.add(st.buffer.name);
    });
    expect([...stored].sort()).toEqual(["B_hi", "B_lo", "B_shared"]);
    expect(loaded.get("B")).toBe(1);
  });
});
