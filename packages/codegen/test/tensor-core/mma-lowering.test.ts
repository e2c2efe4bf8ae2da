/**
 * The mma.sync GEMM lowers through the CUDA pipeline: lowerWarpMemory turns each warp-scope
 * fragment into the registers of one thread, and the operands of ldmatrix / mma / fill / store
 * into that thread's register index; offsets that do not fit the lane layout are refused by name.
 * Its CUDA is inline PTX, refused below sm_80.
 */
import { SMALL_MMA_PARAMS, mmaGemmSchedule, tf32GemmSchedule, tf32x3GemmSchedule } from "@tessera/corpus";
import { type Allocate, type Call, type PrimFunc, forEachExpr, forEachStmt, parsePrimFunc, printExpr } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { CodegenError, codegenCuda } from "../../src/cuda/index.js";
import { LoweringError, lower } from "../../src/index.js";
import { lowerWarpMemory } from "../../src/lower/passes/index.js";

const module = lower(mmaGemmSchedule(128), "nvidia/a100");
const kernel = module.kernels[0]!;

function calls(func: { body: PrimFunc["body"] }, op: string): Call[] {
  const found: Call[] = [];
  forEachExpr(func.body, (e) => {
    if (e.kind === "Call" && e.op === op) found.push(e);
  });
  return found;
}

/** Every buffer store / load of `func` as `name:scope[index]` (a one-dimensional index, as after lowerWarpMemory). */
function accesses(func: PrimFunc, kind: "BufferStore" | "BufferLoad"): string[] {
  const found: string[] = [];
  const note = (x: { buffer: { name: string; scope: string }; indices: readonly Parameters<typeof printExpr>[0][] }): void => {
    found.push(`${x.buffer.name}:${x.buffer.scope}[${printExpr(x.indices[0]!)}]`);
  };
  if (kind === "BufferStore") {
    forEachStmt(func.body, (st) => {
      if (st.kind === "BufferStore") note(st);
    });
  } else {
    forEachExpr(func.body, (e) => {
      if (e.kind === "BufferLoad") note(e);
    });
  }
  return found;
}

describe("lowering the mma.sync GEMM", () => {
  it("gives each thread 8 registers per fragment (local), none in warp scope", () => {
    const allocs: Allocate[] = [];
    forEachStmt(kernel.body, (s) => {
      if (s.kind === "Allocate" && s.buffer.scope !== "shared") allocs.push(s);
    });
    expect(allocs.map((a) => `${a.buffer.name}:${a.buffer.scope}:${printExpr(a.buffer.shape[0]!)}`).sort()).toEqual([
      "A_shared_warp:local:8",
      "B_shared_warp:local:8",
      "C_warp:local:8",
    ]);
  });

  it("indexes the registers per thread: both m16n8k16 halves, B and C at +4", () => {
    const mmas = calls(kernel, "ptx_legacy.mma").map((c) => [7, 9, 11].map((i) => printExpr(c.args[i]!)).join(" "));
    expect(mmas).toEqual(["0 0 0", "0 4 4"]);
    expect(calls(kernel, "ptx_legacy.ldmatrix").map((c) => printExpr(c.args[4]!))).toEqual(["0", "0"]);
  });
});

describe("lowering the tf32 GEMM", () => {
  const tf32 = lower(tf32GemmSchedule(64), "nvidia/a100").kernels[0]!;

  it("gives each thread 4 registers per tf32 fragment, stored by the lane's own rounded loads", () => {
    const stores: string[] = [];
    forEachStmt(tf32.body, (s) => {
      if (s.kind === "BufferStore" && s.buffer.scope === "local") stores.push(`${s.buffer.name}[${printExpr(s.indices[0]!)}]`);
    });
    expect(stores).toEqual(["A_tf32[0]", "A_tf32[1]", "A_tf32[2]", "A_tf32[3]", "B_tf32[0]", "B_tf32[1]", "B_tf32[2]", "B_tf32[3]"]);
    expect(calls(tf32, "tf32_round")).toHaveLength(8);
    const mmas = calls(tf32, "ptx_legacy.mma").map((c) => [7, 9, 11].map((i) => printExpr(c.args[i]!)).join(" "));
    expect(mmas).toEqual(["0 0 0", "0 2 4"]);
  });
});

describe("lowering and generating the 3xTF32 GEMM", () => {
  const module = lower(tf32x3GemmSchedule(64), "nvidia/a100");
  const x3 = module.kernels[0]!;

  it("gives each thread its hi and lo fragments, a chunk and a main accumulator, one tf32x3 call per 8-column half", () => {
    const allocs: string[] = [];
    forEachStmt(x3.body, (s) => {
      if (s.kind === "Allocate" && s.buffer.scope === "local") allocs.push(`${s.buffer.name}[${printExpr(s.buffer.shape[0]!)}]`);
    });
    expect(allocs.sort()).toEqual(["A_hi[4]", "A_lo[4]", "B_hi[4]", "B_lo[4]", "C_acc.rf[8]", "C_acc[8]"]);
    const mmas = calls(x3, "cuda.mma_tf32x3").map((c) => [1, 3, 5, 7, 9].map((i) => printExpr(c.args[i]!)).join(" "));
    expect(mmas).toEqual(["0 0 0 0 0", "0 0 2 2 4"]);
  });

  it("adds the chunk into the main accumulator with the lane's own 8 float adds", () => {
    const adds: string[] = [];
    forEachStmt(x3.body, (s) => {
      if (s.kind === "BufferStore" && s.buffer.name === "C_acc") adds.push(`${printExpr(s.indices[0]!)}: ${printExpr(s.value)}`);
    });
    expect(adds).toEqual(Array.from({ length: 8 }, (_, r) => `${r}: C_acc[${r}] + C_acc_rf[${r}]`));
  });

  it("is three m16n8k8 MMAs in CUDA into the chunk accumulator, the small products first", () => {
    const source = codegenCuda(module).source;
    expect(source).toContain("tessera_mma_m16n8k8_tf32x3(C_acc_rf + 0, A_hi + 0, A_lo + 0, B_hi + 0, B_lo + 0);");
    expect(source).toContain(
      "  tessera_mma_m16n8k8_tf32_tf32_fp32(c, a_lo, b_hi);\n  tessera_mma_m16n8k8_tf32_tf32_fp32(c, a_hi, b_lo);\n  tessera_mma_m16n8k8_tf32_tf32_fp32(c, a_hi, b_hi);",
    );
  });
});

/** One warp buffer of two groups, loaded by ldmatrix with the given destination offset. */
const warpFunc = (offset: string, extra = "") =>
  parsePrimFunc(`
@T.prim_func
def main(S: T.Buffer((256,), "float16")):
    W = T.allocate([512], "float16", "warp")
    W_1 = T.Buffer((512,), "float16", data=W, scope="warp")
    with T.launch_thread("threadIdx.x", 32) as threadIdx_x:
        T.ptx_legacy.ldmatrix(T.bool(False), 4, ".b16", W, ${offset}, T.tvm_access_ptr(T.type_annotation("float16"), S.data, 0, 256, 1), threadIdx_x * 8, dtype="float16")
        T.cuda.mma_fill_legacy(8, W, 256, dtype="float16")${extra}
`);

describe("lowerWarpMemory", () => {
  it("maps group g, lane t, register r (offset 256g + 8t + r) to register 8g + r", () => {
    const f = lowerWarpMemory(warpFunc("256 + threadIdx_x * 8"));
    expect(printExpr(calls(f, "ptx_legacy.ldmatrix")[0]!.args[4]!)).toBe("8");
    expect(printExpr(calls(f, "cuda.mma_fill_legacy")[0]!.args[2]!)).toBe("8");
  });

  it("refuses an offset that reaches into another lane's registers", () => {
    expect(() => lowerWarpMemory(warpFunc("threadIdx_x * 8 + 12"))).toThrow(LoweringError);
    expect(() => lowerWarpMemory(warpFunc("threadIdx_x * 8 + 12"))).toThrow(
      /lowerWarpMemory: the register offset threadIdx_x \* 8 \+ 12 of warp buffer W does not start at lane 0/,
    );
  });

  it("turns a lane's plain store and load of its own register into accesses of the thread's register", () => {
    const f = lowerWarpMemory(warpFunc("threadIdx_x * 8", "\n        W_1[256 + threadIdx_x * 8 + 3] = W_1[threadIdx_x * 8 + 2]"));
    expect(accesses(f, "BufferStore")).toEqual(["W:local[11]"]);
    expect(accesses(f, "BufferLoad")).toEqual(["W:local[2]"]);
  });

  it("refuses a plain store or read of another lane's registers", () => {
    expect(() => lowerWarpMemory(warpFunc("threadIdx_x * 8", "\n        W_1[threadIdx_x] = T.float16(1)"))).toThrow(
      "lowerWarpMemory: the register offsets of warp buffer W give its lanes different widths (coefficients of threadIdx.x: 1, 8)",
    );
    expect(() => lowerWarpMemory(warpFunc("threadIdx_x * 8", "\n        S[0] = W_1[threadIdx_x * 8 + 8]"))).toThrow(
      "lowerWarpMemory: the register offset threadIdx_x * 8 + 8 of warp buffer W does not start at lane 0 of a group of 32 × 8 registers",
    );
  });

  it("turns a lane's vector access of two adjacent registers, flattened as broadcast + ramp, into the thread's registers (the 16-bit epilogue's pairs)", () => {
    const pair = "T.Broadcast(256 + threadIdx_x * 8, 2) + T.Ramp(2, 1, 2)";
    const f = lowerWarpMemory(warpFunc("threadIdx_x * 8", `\n        S[T.Ramp(threadIdx_x * 2, 1, 2)] = W_1[${pair}]`));
    expect(accesses(f, "BufferLoad")).toEqual(["W:local[T.Ramp(10, 1, 2)]"]);
  });

  it("refuses a vector access that runs into the next lane's registers", () => {
    expect(() => lowerWarpMemory(warpFunc("threadIdx_x * 8", "\n        S[T.Ramp(0, 1, 2)] = W_1[T.Broadcast(threadIdx_x * 8, 2) + T.Ramp(7, 1, 2)]"))).toThrow(
      /lowerWarpMemory: the vector access .* of warp buffer W is not of adjacent registers of one lane/,
    );
  });
});

describe("the mma.sync GEMM software-pipelined (2 stages, cp.async)", () => {
  // Regression: the pipeline saw no reader of the shared tiles (ldmatrix reads them through a
  // T.tvm_access_ptr), so it neither double-buffered them nor waited for the copies.
  const pipelined = lower(mmaGemmSchedule(128, { ...SMALL_MMA_PARAMS, pipelineStages: 2 }), "nvidia/a100").kernels[0]!;

  it("double-buffers the shared tiles and points each ldmatrix into the stage's version", () => {
    const shared: string[] = [];
    forEachStmt(pipelined.body, (s) => {
      if (s.kind === "Allocate" && s.buffer.scope === "shared") shared.push(`${s.buffer.name}[${printExpr(s.buffer.shape[0]!)}]`);
    });
    // Two versions of 32 rows × 40 halves, the last one compacted to the 1272 elements used.
    expect(shared).toEqual(["A_shared[2552]", "B_shared[2552]"]);
    const pointers = calls(pipelined, "ptx_legacy.ldmatrix").map((c) => printExpr((c.args[5] as Call).args[2]!));
    expect(pointers.some((p) => p.includes("k_0_0 % 2 * 1280"))).toBe(true);
    expect(calls(pipelined, "ptx_cp_async").length).toBeGreaterThan(0);
  });
});

describe("CUDA C of the mma.sync GEMM", () => {
  const source = codegenCuda(module).source;

  it("is inline PTX: ldmatrix (.trans for B) and m16n8k16 on 16-byte aligned register arrays", () => {
    expect(source).toContain('asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\\n"');
    expect(source).toContain("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16");
    expect(source).toContain("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3}");
    expect(source).toContain("__align__(16) float C_warp[8];");
    expect(source).toContain("tessera_mma_m16n8k16_fp16_fp16_fp32(C_warp + 4, A_shared_warp + 0, B_shared_warp + 4);");
    expect(source).toMatch(/tessera_mma_store_16x16_f32\(C \+ .*, C_warp \+ 0, 128\);/);
  });

  it("is refused for a GPU before sm_80", () => {
    const t4 = lower(mmaGemmSchedule(128), "nvidia/tesla-t4");
    expect(() => codegenCuda(t4)).toThrow(CodegenError);
    expect(() => codegenCuda(t4)).toThrow(/mma\.sync m16n8k16\/m16n8k8 needs sm_80 or newer; target nvidia\/tesla-t4 is sm_75/);
  });
});
