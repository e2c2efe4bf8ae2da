/**
 * 3xTF32 on the tf32 wgmma (wgmmaTf32x3GemmSchedule / …ReluAddSchedule: pre-passes writing the
 * tf32 hi and lo parts of Bᵀ (and with `registerA: false` of A; by default A is split into hi and
 * lo in registers and read by the register-A wgmma), three m64nNk8 wgmmas per 8-wide k step into a chunk
 * accumulator added into the main one after each 32-k stage) in the simulator. The simulator runs
 * the three wgmmas as the hardware issues them, each summing its 8 k in turn, so the kernel's
 * float32 sums are those of the instruction order — lo·hi, hi·lo, hi·hi per k step — not the
 * function's per-k `(lo·hi + hi·lo) + hi·hi`: the kernel is checked bit for bit against that
 * order written out (`threeWgmmaOrder`, wgmma-tf32x3-order.ts), and against the executor within
 * float32 rounding of the sums. The gemm+ReLU+add at 256³ with WGMMA_TF32X3_PARAMS is
 * wgmma-tf32x3-gemm-large.test.ts's (the slow suite).
 */
import { WGMMA_MMA_ASYNC, WGMMA_MMA_ASYNC_RS, lower } from "@tessera/codegen";
import { SMALL_WGMMA_TF32X3_PARAMS, wgmmaTf32x3GemmSchedule } from "@tessera/corpus";
import { constantSize, forEachExpr, forEachStmt } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { run } from "./wgmma-tf32x3-order.js";

const N = 128;

describe("3xTF32 on the tf32 wgmma in the simulator", () => {
  it("gemm 128³, one warpgroup, no pipeline: the three-wgmma order bit for bit, the executor's within float32 rounding", () => {
    const r = run(lower(wgmmaTf32x3GemmSchedule(N, SMALL_WGMMA_TF32X3_PARAMS), "nvidia/h100"), N, false, 3);
    expect(r).toEqual({ ...r, modelBits: 0, races: 0 });
    expect(r.executorMax).toBeGreaterThan(0);
    expect(r.executorMax).toBeLessThan(r.scale * 2 ** -19);
  });

  it("with scale-d 0 in place of the chunk's zero fill (lowered with foldWgmmaZeroFill): gemm 128³, the three-wgmma order bit for bit", () => {
    const r = run(lower(wgmmaTf32x3GemmSchedule(N, SMALL_WGMMA_TF32X3_PARAMS), "nvidia/h100", { foldWgmmaZeroFill: true }), N, false, 3);
    expect(r).toEqual({ ...r, modelBits: 0, races: 0 });
  });

  it("A's register loads at the stage (kStepALoads: false, session 14's kernel): gemm 128³, the three-wgmma order bit for bit", () => {
    const r = run(lower(wgmmaTf32x3GemmSchedule(N, { ...SMALL_WGMMA_TF32X3_PARAMS, kStepALoads: false }), "nvidia/h100"), N, false, 3);
    expect(r).toEqual({ ...r, modelBits: 0, races: 0 });
  });

  it("A from shared memory (registerA: false, session 13's kernel): gemm 128³, the three-wgmma order bit for bit (256³: the -large file)", () => {
    const small = run(lower(wgmmaTf32x3GemmSchedule(N, { ...SMALL_WGMMA_TF32X3_PARAMS, registerA: false }), "nvidia/h100"), N, false, 3);
    expect(small).toEqual({ ...small, modelBits: 0, races: 0 });
  });

  // With A's loads per k step (kStepALoads, the register-A default) the k-step loop is unrolled: its 4 steps are 4 groups in the code.
  it.each([
    { registerA: false, oneBPass: false, kStepALoads: false, kernels: 5, op: WGMMA_MMA_ASYNC, steps: 1 },
    { registerA: true, oneBPass: false, kStepALoads: true, kernels: 3, op: WGMMA_MMA_ASYNC_RS, steps: 4 },
    { registerA: true, oneBPass: true, kStepALoads: true, kernels: 2, op: WGMMA_MMA_ASYNC_RS, steps: 4 },
    { registerA: true, oneBPass: true, kStepALoads: false, kernels: 2, op: WGMMA_MMA_ASYNC_RS, steps: 1 },
  ])(
    "issues three wgmmas per 8-wide k step in one committed group (registerA $registerA, oneBPass $oneBPass, kStepALoads $kStepALoads: $kernels kernels, $op)",
    ({ registerA, oneBPass, kStepALoads, kernels, op, steps }) => {
      const module = lower(wgmmaTf32x3GemmSchedule(N, { ...SMALL_WGMMA_TF32X3_PARAMS, registerA, oneBPass, kStepALoads }), "nvidia/h100");
      const gemm = module.kernels.at(-1)!;
      let [wgmmas, commits] = [0, 0];
      forEachExpr(gemm.body, (e) => {
        if (e.kind === "Call" && (e.op === WGMMA_MMA_ASYNC || e.op === WGMMA_MMA_ASYNC_RS)) wgmmas += e.op === op ? 1 : 100;
        if (e.kind === "Call" && e.op === "ptx.wgmma_commit_group") commits++;
      });
      expect(module.kernels).toHaveLength(kernels);
      expect([wgmmas, commits]).toEqual([3 * steps, steps]);
    },
  );

  it("A's loads per k step: two versions of the 4-register fragments, the k steps' wgmmas alternating between them, each refill after the step's wgmmas and a wait_group 1", () => {
    const gemm = lower(wgmmaTf32x3GemmSchedule(N, SMALL_WGMMA_TF32X3_PARAMS), "nvidia/h100").kernels.at(-1)!;
    const sizes = new Map<string, number>();
    const order: string[] = [];
    forEachStmt(gemm.body, (st) => {
      if (st.kind === "Allocate" && st.buffer.name.startsWith("A_")) sizes.set(st.buffer.name, constantSize(st.buffer) ?? Number.NaN);
      if (st.kind === "BufferStore" && st.buffer.name === "A_hi" && st.indices[0]?.kind === "IntImm" && st.indices[0].value % 4 === 0)
        order.push(`load ${st.indices[0].value / 4}`);
      if (st.kind !== "Evaluate" || st.value.kind !== "Call") return;
      const c = st.value;
      if (c.op === WGMMA_MMA_ASYNC_RS && c.args[6]?.kind === "Var" && c.args[6].name === "A_hi" && c.args[7]?.kind === "IntImm")
        order.push(`wgmma ${c.args[7].value / 4}`);
      if (c.op === "ptx.wgmma_wait_group" && c.args[0]?.kind === "IntImm") order.push(`wait ${c.args[0].value}`);
    });
    expect(Object.fromEntries(sizes)).toEqual({ A_hi: 8, A_lo: 8 });
    // hi·lo and hi·hi read A_hi: two wgmmas a step.
    const steps = order.filter((x) => !x.startsWith("wait ") || x === "wait 1");
    expect(steps.join(", ")).toContain(
      "load 0, wgmma 0, wgmma 0, wait 1, load 1, wgmma 1, wgmma 1, wait 1, load 0, wgmma 0, wgmma 0, wait 1, load 1, wgmma 1, wgmma 1",
    );
  });

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
